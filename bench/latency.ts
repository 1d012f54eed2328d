/**
 * Trigger -> start latency benchmark (not a test): 200 sequential runs of a
 * one-step builtin.noop job. For each: triggerRun, then a claimer that is
 * already waiting on LISTEN tickflow_tasks wakes on the NOTIFY and claims;
 * latency = claim returned - trigger called (wall clock, ms). Reports p50/p90/p99/max
 * over the runs after WARM_UP uncounted ones (and the first, cold run apart).
 * What is measured: lib/engine triggerRun (on a console's Prisma client) + NOTIFY
 * delivery + claimTasks on a worker's hot-path pool (lib/sql-pool.ts, as
 * worker/create-worker.ts claims), in-process (no worker process, no handler).
 *
 *   node --import tsx bench/latency.ts [runs=200]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its
 * server), else an embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { withBenchDatabase } from './bench-db.ts';
import pg from 'pg';
import { createPrismaClient } from '../lib/db.ts';
import { createSqlPool, HOT_PATH_SETTINGS } from '../lib/sql-pool.ts';
import { TASKS_CHANNEL, claimTasks, completeTask, triggerRun } from '../lib/engine/index.ts';

/**
 * Runs before the counted ones: the first executions of each statement on a connection parse and
 * plan it (a generic plan is built once per connection, lib/sql-pool.ts), which a worker that has
 * been up for a while has long done. The first run's figure is printed apart.
 */
const WARM_UP = 20;

async function main() {
  const n = Number(process.argv[2] ?? 200);
  await withBenchDatabase('latency', async (url) => {
    const triggerDb = createPrismaClient(url, 2);
    // the claim goes over a worker's hot-path pool, as worker/create-worker.ts sends it
    const workerDb = createSqlPool(url, 2, { settings: HOT_PATH_SETTINGS });
    const job = await triggerDb.job.create({
      data: { key: 'bench.latency', name: 'bench latency', scheduleKind: 'manual', blockStrategy: 'discard_later',
        steps: { create: [{ key: 'main', handler: 'builtin.noop' }] } },
    });
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    let wake: (() => void) | null = null;
    listener.on('notification', () => wake?.());
    await listener.query(`LISTEN ${TASKS_CHANNEL}`);
    const claimOnce = async () => {
      const got = await claimTasks(workerDb, { nodeId: 'lat-node', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 });
      return got[0];
    };
    const samples: number[] = [];
    let triggerOnly = 0;
    let cold = NaN;
    for (let i = -WARM_UP; i < n; i++) {
      const woke = new Promise<void>((resolve) => { wake = resolve; });
      const t0 = performance.now();
      await triggerRun(triggerDb, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
      const triggerMs = performance.now() - t0;
      await woke;
      let task = await claimOnce();
      while (!task) task = await claimOnce(); // a notification can only be early, never lost here
      const ms = performance.now() - t0;
      if (i === -WARM_UP) cold = ms;
      if (i >= 0) {
        samples.push(ms);
        triggerOnly += triggerMs;
      }
      await completeTask(workerDb, { taskId: task.id, attempt: task.attempt, nodeId: 'lat-node', outcome: 'success' });
    }
    await listener.end();
    await triggerDb.$disconnect();
    await workerDb.$disconnect();
    samples.sort((a, b) => a - b);
    const q = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))].toFixed(1);
    console.log(`trigger -> start over ${n} sequential runs after ${WARM_UP} not counted (triggerRun + NOTIFY + claimTasks, in-process; the first run, cold: ${cold.toFixed(1)} ms):`);
    console.log(`p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms, max ${samples.at(-1)!.toFixed(1)} ms; triggerRun alone avg ${(triggerOnly / n).toFixed(1)} ms`);
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
