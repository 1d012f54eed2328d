/**
 * Database outages (docs/engine.md "Outages" and "Liveness"), against a
 * PostgreSQL server this file owns and stops and starts (tests/helpers/own-server.ts):
 * - work resumes within 2 s of the server accepting connections, even after an
 *   outage long enough for the loops' back-off to have grown;
 * - an outage longer than the lease condemns no live worker: its running task
 *   is neither reclaimed nor re-run;
 * - a result that finished during the outage is kept and recorded after it.
 * In-process workers, real time; every database timestamp is the workers' clock.
 * Not on useTestDatabase: stopping the shared server would take every other file's database down.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import { startOwnServer, type OwnServer } from '../helpers/own-server.ts';
import { insertJob, spawnWorker, testWorkerConfig, useWorkers, waitFor, type JobFixture } from './worker-fixtures.ts';

let server: OwnServer;
let db: PrismaClient;
beforeAll(async () => {
  server = await startOwnServer();
  db = createPrismaClient(server.url, 4);
}, 120_000);
afterAll(async () => {
  await db?.$disconnect().catch(() => undefined);
  await server?.close();
}, 60_000);

const workers = useWorkers();
function worker(over: Parameters<typeof testWorkerConfig>[1] = {}): Worker {
  const w = createWorker({ config: testWorkerConfig(server.url, { roles: ['claim', 'reap'], ...over }) });
  workers.push(w);
  return w;
}

/** A short-lived client per query: the test's own reads must not depend on a pool that lived through the outage. */
async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: server.url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

async function trigger(f: JobFixture): Promise<string> {
  const jobId = await insertJob(db, { scheduleKind: 'manual', blockStrategy: 'serial_execution', ...f });
  const { run } = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
  return (await db.task.findFirstOrThrow({ where: { runId: run.id } })).id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('database outages', () => {
  it('a worker process started while the database is away waits for it, then starts; a stop meanwhile exits 0', async () => {
    await server.stop();
    try {
      const waiting = spawnWorker(server.url, { TICKFLOW_DB_POOL: '2' });
      await waitFor(async () => /database not reachable yet/.test(waiting.output()), 15_000, 'the waiting log line', 100);
      const stopped = spawnWorker(server.url, { TICKFLOW_DB_POOL: '2' });
      await waitFor(async () => /database not reachable yet/.test(stopped.output()), 15_000, 'the second waiting log line', 100);
      stopped.child.kill('SIGTERM');
      expect(await stopped.exited).toEqual({ code: 0, signal: null });
      await server.start();
      const nodeId = await waiting.ready;
      expect((await query<{ status: string }>(`SELECT status FROM worker_nodes WHERE node_id = $1`, [nodeId]))[0]?.status).toBe('online');
      waiting.child.kill('SIGTERM');
      expect(await waiting.exited).toEqual({ code: 0, signal: null });
    } finally {
      await server.start();
    }
  }, 90_000);

  it('work resumes within 2 s of the server accepting connections after a 16 s outage', async () => {
    // Default-like intervals: before, the claimer's back-off reached 16 s and more during such an outage.
    const w = worker({ pollMs: 1000, tickMs: 1000, heartbeatMs: 1000, leaseSeconds: 5, reapMs: 1000 });
    await w.start();
    const warm = await trigger({ steps: [{ handler: 'builtin.noop' }] });
    await waitFor(async () => (await db.task.findUniqueOrThrow({ where: { id: warm } })).status === 'success', 15_000, 'warm-up task');

    await server.stop();
    await sleep(16_000);
    await server.start();
    const upAt = Date.now();
    const [{ id: jobId }] = await query<{ id: string }>(
      `INSERT INTO jobs (key, name, schedule_kind, block_strategy) VALUES ('outage-resume', 'outage resume', 'manual', 'serial_execution') RETURNING id::text`,
    );
    await query(`INSERT INTO job_steps (job_id, key, handler) VALUES ($1::uuid, 'main', 'builtin.noop')`, [jobId]);
    const c = createPrismaClient(server.url, 1);
    try {
      await triggerRun(c, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    } finally {
      await c.$disconnect();
    }
    const [claimed] = await waitFor(
      () => query<{ at: Date }>(`SELECT l.created_at AS at FROM task_logs l JOIN tasks t ON t.id = l.task_id
                                  WHERE t.job_id = $1 AND l.to_status = 'running'`, [jobId]).then((r) => (r.length ? r : null)),
      20_000, 'the new task to be claimed', 100,
    );
    expect(claimed!.at.getTime() - upAt).toBeLessThan(2000);
    expect(w.health.isDown).toBe(false);

  }, 90_000);

  it('a run created ahead of a slot the outage made it miss: withdrawn when the database is back, before the worker claims again (not started late)', async () => {
    // An hourly job (misfire policy skip) whose 14:00 run the ticker created ahead, 12 s before the
    // slot by the worker's clock; the server goes away, the worker's clock moves on 30 min, the server
    // comes back. The job is not due then (next fire 15:00): only the catch-up after the outage
    // (create-worker.ts, Claimer.holdUntil) can withdraw the run before a claim starts it 30 min late.
    const H = new Date('2026-12-05T14:00:00.000Z');
    let offset = 0;
    const t0 = Date.now();
    const clock = () => new Date(H.getTime() - 12_000 + (Date.now() - t0) + offset);
    const jobId = await insertJob(db, { key: 'outage-ahead-hourly', cron: '0 * * * *', misfirePolicy: 'skip', blockStrategy: 'serial_execution', nextRunAt: H });
    try {
      const w = createWorker({
        config: testWorkerConfig(server.url, { roles: ['tick', 'claim', 'reap'], lookaheadMs: 15_000, pollMs: 100, tickMs: 200, heartbeatMs: 500 }),
        clock,
      });
      workers.push(w);
      await w.start();
      const [ahead] = await waitFor(
        () => query<{ id: string }>(`SELECT id::text FROM runs WHERE job_id = $1 AND scheduled_for = $2`, [jobId, H]).then((r) => (r.length ? r : null)),
        10_000, 'the 14:00 run created ahead', 100,
      );
      await server.stop();
      offset += 30 * 60_000;
      // the worker has seen the database go away (its loops' next statements failed)
      await waitFor(async () => w.health.isDown, 15_000, 'the worker to see the outage', 50);
      await server.start();
      const settled = await waitFor(async () => {
        const rows = await query<{ status: string; task_status: string; started_at: Date | null }>(
          `SELECT r.status::text, t.status::text AS task_status, t.started_at FROM runs r JOIN tasks t ON t.run_id = r.id WHERE r.id = $1::uuid`, [ahead!.id]);
        return rows[0] && (rows[0].status !== 'pending' || rows[0].task_status !== 'pending') ? rows[0] : null;
      }, 20_000, 'the run created ahead withdrawn or claimed', 100);
      expect(settled).toMatchObject({ status: 'cancelled', task_status: 'cancelled', started_at: null });
      const skipped = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM runs WHERE job_id = $1 AND scheduled_for = $2 AND status = 'skipped'`, [jobId, H]);
      expect(skipped[0]!.n).toBe(1);
    } finally {
      await query(`UPDATE jobs SET status = 'paused' WHERE id = $1::uuid`, [jobId]);
    }
  }, 90_000);

  it('an outage longer than the lease: the running task is not reclaimed, and a result finished meanwhile is recorded after it', async () => {
    // Two workers, both reaping every 200 ms; lease 3 s renewed every second; the server is down 9 s.
    const cfg = { leaseSeconds: 3, heartbeatMs: 1000, reapMs: 200, pollMs: 200 };
    const a = worker(cfg);
    await a.start();
    const long = await trigger({ timeoutSeconds: 120, maxRetries: 2, steps: [{ handler: 'builtin.sleep', payload: { ms: 14_000 } }] });
    const short = await trigger({ timeoutSeconds: 120, maxRetries: 2, steps: [{ handler: 'builtin.sleep', payload: { ms: 1500 } }] });
    await waitFor(async () => {
      const rows = await db.task.findMany({ where: { id: { in: [long, short] }, status: 'running' } });
      return rows.length === 2;
    }, 15_000, 'both tasks running on worker A');
    const b = worker(cfg); // a live peer whose reaper sees every lease expire during the outage
    await b.start();

    await server.stop();
    await sleep(9000); // three lease periods; the short task's handler returns while the server is down
    expect(a.runner.count).toBe(1);
    await server.start();

    const done = await waitFor(async () => {
      const rows = await query<{ id: string; status: string; attempt: number; locked_by: string; output: unknown }>(
        `SELECT id::text, status::text, attempt, locked_by, output FROM tasks WHERE id = ANY($1::uuid[])`, [[long, short]]);
      return rows.every((r) => r.status === 'success') ? rows : null;
    }, 30_000, 'both tasks to succeed');
    for (const r of done) expect(r).toMatchObject({ attempt: 1, locked_by: a.nodeId }); // never reclaimed, never re-run
    const logs = await query<{ task_id: string; message: string; to_status: string }>(
      `SELECT task_id::text, message, to_status::text FROM task_logs WHERE task_id = ANY($1::uuid[]) ORDER BY id`, [[long, short]]);
    expect(logs.filter((l) => /lease expired/.test(l.message))).toEqual([]);
    expect(logs.filter((l) => l.to_status === 'running')).toHaveLength(2); // one claim each
    // A and B are both still online: nobody was declared dead.
    const nodes = await query<{ status: string }>(`SELECT status::text FROM worker_nodes WHERE node_id = ANY($1)`, [[a.nodeId, b.nodeId]]);
    expect(nodes.map((n) => n.status)).toEqual(['online', 'online']);
  }, 90_000);
});
