/**
 * The log search reads a line as the console shows it: without ANSI terminal escapes
 * (docs/task-logs.md, "GET /api/v1/logs/search"; SQL function task_log_line_plain, migration
 * prisma/migrations/20261211000000_task_log_search_plain_text). The console strips them with
 * lineText (components/runs/task-log-lines-model.ts, strip-ansi); the SQL function must remove
 * the same characters, or a hit's marked text and the search would disagree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { log } from '../../lib/log.ts';
import { searchTaskLogLines } from '../../lib/task-logs/index.ts';
import { lineText } from '../../components/runs/task-log-lines-model.ts';
import { DEFAULT_TASK_LOG_CONFIG, TaskLogWriter } from '../../worker/task-log-writer.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { triggerOneTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const VIEWER: Actor = { kind: 'user', id: 'v', name: 'viewer@example.com', role: 'viewer' };
const ESC = '\u001b';

/** Writes `texts` as the info lines of attempt 1 of a new one-step task; returns the task id. */
async function writeLines(key: string, texts: string[]): Promise<string> {
  const id = await triggerOneTask(t.db, { key, steps: [{ handler: 'builtin.noop' }] });
  const task = await t.db.task.findUniqueOrThrow({ where: { id } });
  const w = new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG, flushMs: 1000 }, { pool: t.pool, clock: () => new Date(), logger: log('test') });
  const line = w.open({ taskId: task.id, runId: task.runId, jobId: task.jobId, attempt: 1, scheduledFor: task.scheduledFor });
  for (const text of texts) line.taskLog.info(text);
  await w.stop();
  return id;
}

describe('log search over the text as shown', () => {
  it('finds words a colour code splits, never the escapes themselves, and answers the line as stored', async () => {
    const red = `${ESC}[1;31mERROR${ESC}[0m: disk full on /var`;
    const link = `see ${ESC}]8;;https://example.com/runbook\u0007the runbook${ESC}]8;;\u0007 now`;
    const id = await writeLines('plain.search', [red, link, 'plain words only']);

    const hit = await searchTaskLogLines(t.db, { q: 'error: disk full' }, VIEWER);
    expect(hit.lines.map((l) => [l.taskId, l.text])).toEqual([[id, red]]);
    expect((await searchTaskLogLines(t.db, { q: 'see the runbook now' }, VIEWER)).lines.map((l) => l.text)).toEqual([link]);
    // the escapes are not text: "[1;31m" and the link's address are never shown, so never found
    expect((await searchTaskLogLines(t.db, { q: '[1;31m' }, VIEWER)).lines).toEqual([]);
    expect((await searchTaskLogLines(t.db, { q: 'example.com/runbook' }, VIEWER)).lines).toEqual([]);
    expect((await searchTaskLogLines(t.db, { q: 'plain words' }, VIEWER)).lines).toHaveLength(1);
  });

  it('the search expression is the indexed one (a plan on the trigram index, not a scan of every line)', async () => {
    const c = await t.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      const { rows } = await c.query(`EXPLAIN (COSTS OFF) SELECT 1 FROM task_log_lines WHERE task_log_line_plain(text) ILIKE '%disk full%'`);
      const plan = rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
      expect(plan).toMatch(/Bitmap Index Scan on \S*task_log_line_plain\S*/);
      await c.query('ROLLBACK');
    } finally {
      c.release();
    }
  });

  it('removes what the console removes, for every mix of text and well-formed escapes', async () => {
    const digits = fc.integer({ min: 0, max: 999 }).map(String);
    const params = fc.array(digits, { maxLength: 4 }).map((p) => p.join(';'));
    const escape = fc.oneof(
      // SGR (colours) and the other control sequences programs write: cursor moves, erase, modes
      fc.tuple(fc.constantFrom(`${ESC}[`, '\u009b'), params, fc.constantFrom('m', 'K', 'J', 'H', 'A', 'B', 'C', 'D', 'G', 'f', 's', 'u', 'h', 'l')).map(([intro, p, final]) => intro + p + final),
      fc.tuple(fc.constantFrom(`${ESC}[?`), digits, fc.constantFrom('h', 'l')).map(([intro, p, final]) => intro + p + final),
      // OSC 8 hyperlinks and window titles, ended by BEL
      fc.webUrl().map((url) => `${ESC}]8;;${url}\u0007`),
      fc.constantFrom(`${ESC}]0;build\u0007`, `${ESC}]8;;\u0007`),
    );
    const text = fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'Z', '0', '9', ' ', ';', '[', ']', 'm', ':', '/', 'é', '✓', '%', '_') });
    const line = fc.array(fc.oneof(text, escape), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
    const samples = fc.sample(line, { numRuns: 400, seed: 20261206 });
    const { rows } = await t.pool.query(
      `SELECT task_log_line_plain(x) AS plain FROM unnest($1::text[]) WITH ORDINALITY AS u(x, i) ORDER BY i`, [samples]);
    const differing = samples.filter((s, i) => rows[i].plain !== lineText(s));
    expect(differing).toEqual([]);
    // and the same property as a check that can shrink a failure to its smallest line
    await fc.assert(fc.asyncProperty(line, async (s) => {
      const { rows: [r] } = await t.pool.query('SELECT task_log_line_plain($1) AS plain', [s]);
      expect(r.plain).toBe(lineText(s));
    }), { numRuns: 100, seed: 6 });
  });
});
