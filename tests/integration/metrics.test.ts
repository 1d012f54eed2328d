/**
 * Prometheus metrics (docs/metrics.md): a worker's counters and histograms fed
 * by real claims, completions, retries, lease reclaims and misfires; the
 * installation-wide gauges read from the database; the worker's metrics server
 * and the console's GET /metrics with their token rules; no id ever a label.
 */
import net from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type client from 'prom-client';
import { triggerRun } from '../../lib/engine/index.ts';
import { REACHABLE_TTL_MS } from '../../lib/infra/database-probe.ts';
import { createRegistry, createWorkerMetrics, registerClusterMetrics } from '../../lib/metrics/metrics.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import { startMetricsServer } from '../../worker/metrics-server.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob, testWorkerConfig, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers: Worker[] = [];
afterAll(async () => {
  for (const w of workers) await w.kill();
});

/** Value of one sample, or undefined. */
async function sample(registry: client.Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const all = await registry.getMetricsAsJSON();
  for (const metric of all) {
    for (const v of metric.values as { metricName?: string; value: number; labels: Record<string, string | number> }[]) {
      const n = v.metricName ?? metric.name;
      if (n !== name) continue;
      if (Object.entries(labels).every(([k, val]) => String(v.labels[k]) === val)) return v.value;
    }
  }
  return undefined;
}

async function trigger(jobId: string, scheduledFor = new Date()): Promise<string> {
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor });
  return (await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).id;
}

describe('worker metrics', () => {
  it('count claims, completions by outcome, durations, retries, dead tasks, lateness, lease reclaims and misfires', async () => {
    const metrics = createWorkerMetrics();
    const worker = createWorker({ config: testWorkerConfig(t.url, { concurrency: 4, leaseSeconds: 2 }), db: t.db, metrics });
    workers.push(worker);
    await worker.register();

    const ok = await insertJob(t.db, { scheduleKind: 'manual', steps: [{ handler: 'builtin.sleep', payload: { ms: 120 } }] });
    const failing = await insertJob(t.db, { scheduleKind: 'manual', maxRetries: 1, backoffBaseSeconds: 0, steps: [{ handler: 'builtin.fail', payload: { message: 'no' } }] });
    // scheduled 2 s before it is claimed: a first attempt 2 s late
    const okTask = await trigger(ok, new Date(Date.now() - 2000));
    const failTask = await trigger(failing);

    const now = () => new Date();
    for (let i = 0; i < 40; i++) {
      await worker.claimer.runOnce(now());
      const [a, b] = await Promise.all([t.db.task.findUniqueOrThrow({ where: { id: okTask } }), t.db.task.findUniqueOrThrow({ where: { id: failTask } })]);
      if (a.status === 'success' && b.status === 'dead') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await worker.runner.idle(5000);
    expect((await waitForFinalTask(t.db, okTask)).status).toBe('success');
    expect((await waitForFinalTask(t.db, failTask)).status).toBe('dead');

    const r = metrics.registry;
    expect(await sample(r, 'tickflow_claims_total', { handler: 'builtin.sleep' })).toBe(1);
    expect(await sample(r, 'tickflow_claims_total', { handler: 'builtin.fail' })).toBe(2); // attempt 1 and its retry
    expect(await sample(r, 'tickflow_completions_total', { handler: 'builtin.sleep', outcome: 'success' })).toBe(1);
    expect(await sample(r, 'tickflow_completions_total', { handler: 'builtin.fail', outcome: 'failed' })).toBe(2);
    expect(await sample(r, 'tickflow_retries_total', { handler: 'builtin.fail' })).toBe(1);
    expect(await sample(r, 'tickflow_dead_tasks_total', { handler: 'builtin.fail' })).toBe(1);
    expect(await sample(r, 'tickflow_task_duration_seconds_count', { handler: 'builtin.sleep', outcome: 'success' })).toBe(1);
    // the 120 ms sleep lands above the 0.1 s bucket and inside 0.25 s... or later on a slow machine, never below
    expect(await sample(r, 'tickflow_task_duration_seconds_bucket', { handler: 'builtin.sleep', outcome: 'success', le: '0.1' })).toBe(0);
    expect(await sample(r, 'tickflow_task_duration_seconds_bucket', { handler: 'builtin.sleep', outcome: 'success', le: '+Inf' })).toBe(1);
    // lateness: first attempts only (the sleep 2 s late, the failing task's first attempt), not the retry
    expect(await sample(r, 'tickflow_start_lateness_seconds_count')).toBe(2);
    expect(await sample(r, 'tickflow_start_lateness_seconds_bucket', { le: '1' })).toBe(1);
    expect(await sample(r, 'tickflow_start_lateness_seconds_bucket', { le: '+Inf' })).toBe(2);
    expect(await sample(r, 'tickflow_worker_slots')).toBe(4);

    // lease reclaims: running tasks of a vanished worker whose leases expired, one with no retry
    // left (dead) and one whose failed attempt is retried, booked like the outcomes a worker records
    const orphan = await trigger(ok);
    const retriedOrphan = await trigger(failing);
    await t.pool.query(
      `UPDATE tasks SET status = 'running', locked_by = 'gone-node', lease_until = now() - interval '1 minute', started_at = now() - interval '2 minutes' WHERE id = ANY($1::uuid[])`,
      [[orphan, retriedOrphan]],
    );
    // the reaper reclaims only once the database has answered for a full lease (worker/reaper.ts,
    // docs/engine.md "Liveness"): wait for that condition, then one pass reclaims the orphan
    let pass = await worker.reaper.runOnce(new Date());
    for (let i = 0; pass.waitingForReachability && i < 200; i++) {
      await new Promise((res) => setTimeout(res, 50));
      pass = await worker.reaper.runOnce(new Date());
    }
    expect(pass).toMatchObject({ reclaimed: 2 });
    expect(await sample(r, 'tickflow_lease_reclaims_total')).toBe(2);
    expect(await sample(r, 'tickflow_dead_tasks_total', { handler: 'builtin.sleep' })).toBe(1);
    expect(await sample(r, 'tickflow_retries_total', { handler: 'builtin.fail' })).toBe(2);
    expect(await sample(r, 'tickflow_dead_tasks_total', { handler: 'builtin.fail' })).toBe(1);

    // misfire: an interval job whose due slot is an hour old (grace 60 s)
    await insertJob(t.db, { scheduleKind: 'interval', intervalSeconds: 600, misfirePolicy: 'fire_once', nextRunAt: new Date(Date.now() - 3600_000) });
    const tick = await worker.ticker.runOnce(new Date());
    expect(tick.misfires).toBe(1);
    expect(await sample(r, 'tickflow_misfires_total')).toBe(1);
    expect(await sample(r, 'tickflow_runs_fired_total')).toBe(tick.fired);

    // no job, run or task id anywhere in the exposition
    const text = await r.metrics();
    const ids = (await t.pool.query<{ id: string }>('SELECT id::text FROM jobs UNION ALL SELECT id::text FROM runs UNION ALL SELECT id::text FROM tasks')).rows.map((x) => x.id);
    for (const id of ids) expect(text).not.toContain(id);
    expect(text).toMatch(/^# TYPE tickflow_db_pool_connections gauge$/m);
  });
});

describe('installation-wide gauges', () => {
  it('ready tasks by handler, the oldest ready task age, workers by status', async () => {
    const registry = createRegistry();
    const at = new Date(Date.now() + 60_000); // a minute ahead: tasks triggered now are ready and 60 s old
    registerClusterMetrics(registry, () => t.db, () => at);
    await t.pool.query(`UPDATE tasks SET status = 'cancelled' WHERE status IN ('pending', 'running')`);
    // one job each: a manual job's next trigger would wait for its active run (block strategy)
    const job = () => insertJob(t.db, { scheduleKind: 'manual', steps: [{ handler: 'builtin.noop' }] });
    const oldest = new Date(at.getTime() - 90_000);
    await trigger(await job(), oldest);
    await t.pool.query(`UPDATE tasks SET schedule_at = $1 WHERE status = 'pending'`, [oldest]);
    await trigger(await job());
    // a future task is not ready
    const later = await trigger(await job());
    await t.pool.query(`UPDATE tasks SET schedule_at = $1 WHERE id = $2`, [new Date(at.getTime() + 60_000), later]);

    expect(await sample(registry, 'tickflow_ready_tasks', { handler: 'builtin.noop' })).toBe(2);
    expect(await sample(registry, 'tickflow_oldest_ready_task_age_seconds')).toBeCloseTo(90, 0);

    await t.pool.query(`DELETE FROM worker_nodes`);
    const node = (status: string, beatAgoS: number) =>
      t.pool.query(
        `INSERT INTO worker_nodes (node_id, name, host, pid, handlers, status, last_heartbeat_at) VALUES ($1, 'n', 'h', 1, '{}', $2, $3)`,
        [`n-${randomUUID()}`, status, new Date(at.getTime() - beatAgoS * 1000)],
      );
    await node('online', 5);
    await node('online', 5);
    await node('online', 600); // stale heartbeat: not online
    await node('draining', 5);
    await node('draining', 600); // a draining node with a stale heartbeat is not draining either
    await node('offline', 900);
    // stopped cleanly: counted apart from offline (heartbeat lost), however old the stop
    await node('stopped', 5);
    await node('stopped', 900);
    await node('stopped', 900);
    expect(await sample(registry, 'tickflow_workers', { status: 'online' })).toBe(2);
    expect(await sample(registry, 'tickflow_workers', { status: 'draining' })).toBe(1);
    expect(await sample(registry, 'tickflow_workers', { status: 'stale' })).toBe(2);
    expect(await sample(registry, 'tickflow_workers', { status: 'offline' })).toBe(1);
    expect(await sample(registry, 'tickflow_workers', { status: 'stopped' })).toBe(3);
  });
});

describe('GET /metrics access', () => {
  it('worker metrics server: bound where asked, token required when set, only GET /metrics', async () => {
    const metrics = createWorkerMetrics();
    const server = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 0, token: 'scrape-secret-1' });
    try {
      const url = `http://127.0.0.1:${server.port}`;
      expect((await fetch(`${url}/metrics`)).status).toBe(401);
      expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      const ok = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape-secret-1' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(await ok.text()).toMatch(/^# HELP tickflow_claims_total /m);
      expect((await fetch(`${url}/other`, { headers: { authorization: 'Bearer scrape-secret-1' } })).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it('console route: off without TICKFLOW_METRICS_TOKEN, 401 without the token, the gauges with it', async () => {
    process.env.DATABASE_URL = t.url;
    const { GET } = await import('../../app/metrics/route.ts');
    const saved = process.env.TICKFLOW_METRICS_TOKEN;
    try {
      delete process.env.TICKFLOW_METRICS_TOKEN;
      const off = await GET(new Request('http://localhost/metrics'));
      expect(off.status).toBe(404);
      expect(await off.text()).toMatch(/set TICKFLOW_METRICS_TOKEN/);
      process.env.TICKFLOW_METRICS_TOKEN = 'console-scrape-secret';
      expect((await GET(new Request('http://localhost/metrics'))).status).toBe(401);
      const ok = await GET(new Request('http://localhost/metrics', { headers: { authorization: 'Bearer console-scrape-secret' } }));
      expect(ok.status).toBe(200);
      const text = await ok.text();
      expect(text).toMatch(/^tickflow_workers\{status="online"\} \d+$/m);
      expect(text).toMatch(/^tickflow_oldest_ready_task_age_seconds \d/m);
      expect(text).toMatch(/^tickflow_db_pool_max_connections \d+$/m);
    } finally {
      if (saved === undefined) delete process.env.TICKFLOW_METRICS_TOKEN;
      else process.env.TICKFLOW_METRICS_TOKEN = saved;
      const { getDb } = await import('../../lib/db.ts');
      await getDb().$disconnect();
    }
  });

  it('console route: a database that does not answer is a 503 with Retry-After, before a scraper gives up', async () => {
    // a server that accepts connections and never answers: a frozen database, or one gone from the network
    const held: net.Socket[] = [];
    const blackHole = net.createServer((socket) => held.push(socket));
    await new Promise<void>((r) => blackHole.listen(0, '127.0.0.1', r));
    const saved = { url: process.env.DATABASE_URL, token: process.env.TICKFLOW_METRICS_TOKEN };
    try {
      process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${(blackHole.address() as net.AddressInfo).port}/tickflow`;
      process.env.TICKFLOW_METRICS_TOKEN = 'console-scrape-secret';
      const { GET } = await import('../../app/metrics/route.ts');
      // the earlier test's "reachable" answer is reused for REACHABLE_TTL_MS: let it lapse
      await new Promise((r) => setTimeout(r, REACHABLE_TTL_MS + 50));
      const res = await GET(new Request('http://localhost/metrics', { headers: { authorization: 'Bearer console-scrape-secret' } }));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.text()).toMatch(/^metrics unavailable: the database is not reachable right now/);
      expect(held.length).toBeGreaterThan(0);
    } finally {
      process.env.DATABASE_URL = saved.url;
      if (saved.token === undefined) delete process.env.TICKFLOW_METRICS_TOKEN;
      else process.env.TICKFLOW_METRICS_TOKEN = saved.token;
      for (const socket of held) socket.destroy();
      await new Promise((r) => blackHole.close(r));
    }
  });
});

