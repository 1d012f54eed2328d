/**
 * Tickflow behind PgBouncer in transaction pooling mode (docs/operations.md
 * "Connection poolers"): migrations (concurrent starters, no advisory lock left
 * behind), the REST routes, real worker processes claiming and completing
 * every task exactly once, wake-ups by LISTEN on the direct URL
 * (TICKFLOW_LISTEN_DATABASE_URL), and the safety poll as the fallback when
 * LISTEN has only the pooler.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, withDatabase } from '../../lib/infra/migrate.ts';
import * as health from '../../app/api/v1/health/route.ts';
import * as jobs from '../../app/api/v1/jobs/route.ts';
import * as trigger from '../../app/api/v1/jobs/[id]/trigger/route.ts';
import * as run from '../../app/api/v1/runs/[id]/route.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { call, userToken } from '../helpers/rest.ts';
import { spawnWorker, useWorkerProcesses, waitFor } from './worker-fixtures.ts';

const t = useTestDatabase();
let bouncer: PgBouncer;
let pooledUrl: string;
let token: string;
const procs = useWorkerProcesses();
const saved = { url: process.env.DATABASE_URL, prepared: process.env.TICKFLOW_PREPARED_STATEMENTS };

beforeAll(async () => {
  bouncer = await startPgBouncer(t.url);
  pooledUrl = bouncer.pooled(t.url);
  token = await userToken(t.db, 'admin', 'pooler');
  // The console's settings behind a transaction-mode PgBouncer older than 1.21 (docs/operations.md).
  process.env.DATABASE_URL = pooledUrl;
  process.env.TICKFLOW_PREPARED_STATEMENTS = '0';
});

afterAll(async () => {
  const { getDb } = await import('../../lib/db.ts');
  await getDb().$disconnect();
  process.env.DATABASE_URL = saved.url;
  if (saved.prepared === undefined) delete process.env.TICKFLOW_PREPARED_STATEMENTS;
  else process.env.TICKFLOW_PREPARED_STATEMENTS = saved.prepared;
  await bouncer?.stop();
});

async function createJob(key: string): Promise<string> {
  const res = await call(jobs.POST, 'POST', '/api/v1/jobs', {
    token,
    body: { key, name: key, schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 50 }, policy: { timeoutSeconds: 60, maxRetries: 0 } },
  });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.id;
}

async function triggerRuns(n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const jobId = await createJob(`${prefix}.${i}`);
    const res = await call(trigger.POST, 'POST', `/api/v1/jobs/${jobId}/trigger`, { token, body: {}, params: { id: jobId } });
    expect(res.status, JSON.stringify(res.json)).toBe(201);
    ids.push(res.json.id);
  }
  return ids;
}

/** Every run succeeded, each task ran once (one claim, one success in its task log). */
async function expectEachRanOnce(runIds: string[]) {
  const { rows } = await t.pool.query<{ status: string; attempt: number; claims: number; successes: number }>(
    `SELECT t.status, t.attempt,
            (SELECT count(*)::int FROM task_logs l WHERE l.task_id = t.id AND l.to_status = 'running') AS claims,
            (SELECT count(*)::int FROM task_logs l WHERE l.task_id = t.id AND l.to_status = 'success') AS successes
     FROM tasks t WHERE t.run_id = ANY($1::uuid[])`,
    [runIds],
  );
  expect(rows).toHaveLength(runIds.length);
  for (const r of rows) expect(r).toEqual({ status: 'success', attempt: 1, claims: 1, successes: 1 });
  // each handler's log line reached the database through the pooler (the task log connection
  // once sent a startup option, which PgBouncer refuses: every flush failed and kept its lines)
  await waitFor(async () => {
    const { rows: logged } = await t.pool.query<{ n: number }>(
      `SELECT count(DISTINCT l.task_id)::int AS n FROM task_log_lines l JOIN tasks t ON t.id = l.task_id
       WHERE t.run_id = ANY($1::uuid[]) AND l.text LIKE 'sleeping %'`,
      [runIds],
    );
    return logged[0]!.n === runIds.length;
  }, 15_000, "every task's log line to be stored");
  // and through the REST route, read via the pooler
  const res = await call(run.GET, 'GET', `/api/v1/runs/${runIds[0]}`, { token, params: { id: runIds[0]! } });
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('success');
}

describe('through PgBouncer (transaction mode)', () => {
  it('migrations: concurrent starters apply each migration once and leave no advisory lock held', async () => {
    const admin = new pg.Client({ connectionString: withDatabase(t.url, 'postgres') });
    await admin.connect();
    const name = `${t.name}_m`;
    try {
      await admin.query(`CREATE DATABASE "${name}"`);
      const url = bouncer.pooled(withDatabase(t.url, name));
      const [a, b] = await Promise.all([migrate(url), migrate(url)]);
      expect(a.applied.length + b.applied.length).toBe(a.applied.length + a.alreadyApplied);
      expect(new Set([...a.applied, ...b.applied]).size).toBe(a.applied.length + b.applied.length);
      const again = await migrate(url);
      expect(again.applied).toEqual([]);
      const locks = await admin.query(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = $1`, [name]);
      expect(locks.rows[0].n).toBe(0);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it('the console routes and two workers: claims, completions, LISTEN wake-ups on the direct URL', async () => {
    const h = await call(health.GET, 'GET', '/api/v1/health');
    expect(h.status).toBe(200);
    // A 60 s poll: only a LISTEN wake-up can start these tasks within the wait below.
    const env = { TICKFLOW_PREPARED_STATEMENTS: '0', TICKFLOW_LISTEN_DATABASE_URL: t.url, TICKFLOW_POLL_MS: '60000', TICKFLOW_TICK_MS: '60000', TICKFLOW_CONCURRENCY: '4', TICKFLOW_DB_POOL: '4' };
    for (let i = 0; i < 2; i++) procs.push(spawnWorker(pooledUrl, env));
    await Promise.all(procs.map((p) => p.ready));
    // let both workers finish their start-up claim pass, so only NOTIFY can wake them now
    await new Promise((r) => setTimeout(r, 1000));
    const started = Date.now();
    const runIds = await triggerRuns(20, 'pooled');
    await waitFor(async () => {
      const { rows } = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND status = 'success'`, [runIds]);
      return rows[0]!.n === runIds.length;
    }, 30_000, 'every run to succeed');
    expect(Date.now() - started).toBeLessThan(45_000);
    await expectEachRanOnce(runIds);
    const { rows } = await t.pool.query<{ n: number }>(`SELECT count(DISTINCT locked_by)::int AS n FROM tasks WHERE run_id = ANY($1::uuid[])`, [runIds]);
    expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
  }, 90_000);

  it('the fallback: LISTEN through the pooler hears nothing reliable, the safety poll still runs everything', async () => {
    const env = { TICKFLOW_PREPARED_STATEMENTS: '0', TICKFLOW_POLL_MS: '500', TICKFLOW_CONCURRENCY: '4', TICKFLOW_DB_POOL: '4' };
    procs.push(spawnWorker(pooledUrl, env));
    await procs[0]!.ready;
    const runIds = await triggerRuns(10, 'polled');
    await waitFor(async () => {
      const { rows } = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND status = 'success'`, [runIds]);
      return rows[0]!.n === runIds.length;
    }, 30_000, 'every run to succeed by polling');
    await expectEachRanOnce(runIds);
  }, 60_000);
});
