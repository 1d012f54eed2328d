/**
 * What one log search may cost (docs/task-logs.md "GET /api/v1/logs/search"): any role may search,
 * so a search must never read every stored line, nor may a burst of searches take the console's
 * database connections. A text without a trigram for the index (`~~~`, `a..`) is refused at `q`,
 * by pg_trgm's own rule (checked here against PostgreSQL's plan); searches past the process's
 * slots, or a principal's share of them, are a 429 at once (lib/task-logs/search-lines.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as search from '../../app/api/v1/logs/search/route.ts';
import type { Actor } from '../../lib/auth/actor.ts';
import { containsPattern } from '../../lib/api/like.ts';
import { log } from '../../lib/log.ts';
import { MAX_CONCURRENT_SEARCHES, MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL, searchTaskLogLines, searchTextHasTrigram } from '../../lib/task-logs/index.ts';
import { DEFAULT_TASK_LOG_CONFIG, TaskLogWriter } from '../../worker/task-log-writer.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { call, useRestFixture } from '../helpers/rest.ts';
import { triggerOneTask } from './worker-fixtures.ts';

const viewerActor = (id: string): Actor => ({ kind: 'user', id, name: `${id}@example.com`, role: 'viewer' });

describe('log search cost', () => {
  let t: TestDatabase;
  let viewer: string;
  useRestFixture([], (f) => ({ t, viewer } = f));

  /** Writes `texts` as lines of a new one-step task. */
  async function writeLines(key: string, texts: string[]): Promise<void> {
    const id = await triggerOneTask(t.db, { key, steps: [{ handler: 'builtin.noop' }] });
    const task = await t.db.task.findUniqueOrThrow({ where: { id } });
    const w = new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG }, { pool: t.pool, clock: () => new Date(), logger: log('test') });
    const l = w.open({ taskId: id, runId: task.runId, jobId: task.jobId, attempt: 1, scheduledFor: task.scheduledFor });
    for (const text of texts) l.taskLog.info(text);
    await w.stop();
  }

  it('a text the trigram index cannot look up is refused at q: PostgreSQL would read every line for it', async () => {
    await writeLines('cost.scan', ['zzzz xxxx wwww', 'xxxx zzzz']);
    const c = await t.pool.connect();
    /** Rows the trigram index hands the search for `q`: every line when the pattern has no trigram. */
    const indexRows = async (q: string): Promise<number> => {
      const { rows } = await c.query(`EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) SELECT 1 FROM task_log_lines WHERE task_log_line_plain(text) ILIKE $1`, [containsPattern(q)]);
      let n = 0;
      const walk = (node: { 'Node Type': string; 'Index Name'?: string; 'Actual Rows': number; Plans?: unknown[] }) => {
        if (node['Node Type'] === 'Bitmap Index Scan' && node['Index Name']?.includes('plain')) n += node['Actual Rows'];
        for (const p of node.Plans ?? []) walk(p as typeof node);
      };
      walk(rows[0]['QUERY PLAN'][0].Plan);
      return n;
    };
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      await c.query('SET LOCAL enable_indexscan = off');
      // none of these characters is in a stored line: a pattern with a trigram gets no row from the index, one without gets them all
      const text = fc.string({ unit: fc.constantFrom('a', 'b', 'é', '1', '.', ' ', '-', '%', '_', '~'), minLength: 1, maxLength: 6 });
      await fc.assert(
        fc.asyncProperty(text, async (q) => {
          expect(searchTextHasTrigram(q)).toBe((await indexRows(q)) === 0);
        }),
        { numRuns: 150, seed: 20261207 },
      );
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }

    for (const q of ['~~~', 'a..', '...', '"#"']) {
      const r = await call(search.GET, 'GET', `/api/v1/logs/search?q=${encodeURIComponent(q)}`, { token: viewer });
      expect(r.status, q).toBe(400);
      expect(r.json.error.fields.q).toMatch(/index can look up/);
    }
    for (const q of ['zzzz', 'x.z', 'ab.', 'xxxx zz']) {
      expect((await call(search.GET, 'GET', `/api/v1/logs/search?q=${encodeURIComponent(q)}`, { token: viewer })).status, q).toBe(200);
    }
  });

  it('searches past a principal\'s share or the process\'s slots are a 429 at once; the slots are given back', async () => {
    await writeLines('cost.slots', ['slot line one']);
    // a lock on the table holds every search that starts in its slot until the lock is released
    const holder = await t.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE task_log_lines IN ACCESS EXCLUSIVE MODE');
    const held: Promise<unknown>[] = [];
    try {
      for (let i = 0; i < MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL; i++) held.push(searchTaskLogLines(t.db, { q: 'slot line' }, viewerActor('a')));
      await new Promise((r) => setTimeout(r, 200));
      await expect(searchTaskLogLines(t.db, { q: 'slot line' }, viewerActor('a'))).rejects.toMatchObject({ code: 'rate_limited', detail: { retryAfterSeconds: 5 } });
      for (let i = MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL; i < MAX_CONCURRENT_SEARCHES; i++) held.push(searchTaskLogLines(t.db, { q: 'slot line' }, viewerActor(`b${i}`)));
      await new Promise((r) => setTimeout(r, 200));
      // every slot taken: another principal waits its turn too, and REST says when to come back
      const refused = await call(search.GET, 'GET', '/api/v1/logs/search?q=slot%20line', { token: viewer });
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limited');
      expect(refused.headers.get('retry-after')).toBe('5');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    for (const r of await Promise.all(held)) expect(r).toMatchObject({ lines: [{ text: 'slot line one' }] });
    expect((await call(search.GET, 'GET', '/api/v1/logs/search?q=slot%20line', { token: viewer })).status).toBe(200);
  });
});
