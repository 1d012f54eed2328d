/**
 * DAG-size benchmark (not a test): a random layered DAG of S steps (default
 * 10,000 = 100 layers x 100) where every step below the first layer has 3
 * distinct parents in the layer above (~30,000 hard edges). Reports:
 * - instantiate: triggerRun (tasks + dependencies + logs, one transaction);
 * - total: from trigger until the run is final, driving lib/engine's
 *   claimTasks + completeTask in-process with a no-op handler (no worker
 *   process) using L concurrent lanes on a worker's hot-path pool (lib/sql-pool.ts), each
 *   completing its claimed batch with one completeTasks call carrying the claim's keys (as
 *   worker/completion-batcher.ts does);
 * - tasks/s over the drive;
 * - then a second run of the same DAG by real worker processes (the compiled worker, as
 *   `npm run worker` runs it: claimer, runner, completion batcher, hand-off, LISTEN/NOTIFY),
 *   BENCH_DAG_WORKERS of them (default 2) at TICKFLOW_CONCURRENCY BENCH_WORKER_CONCURRENCY
 *   (default 64), started and idle before the trigger: tasks/s from the first task's start to the
 *   run's end (the database's clock; the trigger's own transaction excluded, as above), and
 *   trigger -> run finished. BENCH_DAG_WORKERS=0 skips it.
 *
 *   node --import tsx bench/dag.ts [steps=10000] [lanes=8] [width=100]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its
 * server), else an embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { processCpuMs, startBenchWorkers, stopBenchWorkers, withBenchDatabase } from './bench-db.ts';
import { createPrismaClient } from '../lib/db.ts';
import { createSqlPool, HOT_PATH_SETTINGS } from '../lib/sql-pool.ts';
import { claimTasks, completeTasks, triggerRun } from '../lib/engine/index.ts';

async function main() {
  const steps = Number(process.argv[2] ?? 10000);
  const lanes = Number(process.argv[3] ?? 8);
  const width = Number(process.argv[4] ?? 100);
  await withBenchDatabase('dag', async (url) => {
    // named, so that the real-worker phase counts the CPU of every backend but this script's
    const named = new URL(url);
    named.searchParams.set('application_name', 'bench-dag');
    const db = createPrismaClient(named.toString(), lanes + 2);
    const job = await db.job.create({ data: { key: 'bench.dag', name: 'bench dag', scheduleKind: 'manual' } });
    // Steps s<i> in layer floor(i / width); 3 distinct parents from the previous layer (seeded LCG: reproducible).
    await db.$executeRawUnsafe(
      `INSERT INTO job_steps (job_id, key, handler) SELECT $1::uuid, 's' || g, 'builtin.noop' FROM generate_series(0, $2::int - 1) g`,
      job.id, steps);
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const from: string[] = [];
    const to: string[] = [];
    for (let i = width; i < steps; i++) {
      const layerStart = Math.floor(i / width) * width - width;
      const picks = new Set<number>();
      while (picks.size < Math.min(3, width)) picks.add(layerStart + Math.floor(rand() * width));
      for (const p of picks) { from.push(`s${p}`); to.push(`s${i}`); }
    }
    await db.$executeRawUnsafe(
      `INSERT INTO job_edges (job_id, from_step, to_step) SELECT $1::uuid, f, t FROM unnest($2::text[], $3::text[]) AS u(f, t)`,
      job.id, from, to);

    const t0 = performance.now();
    const { run } = await triggerRun(db, { jobId: job.id, trigger: 'manual', triggeredBy: 'bench', scheduledFor: new Date() });
    const instantiateMs = performance.now() - t0;

    let done = 0;
    const hot = createSqlPool(url, lanes, { settings: HOT_PATH_SETTINGS });
    await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
      const nodeId = `dag-node-${lane}`;
      let idle = 0;
      for (;;) {
        const claimed = await claimTasks(hot, { nodeId, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 10, leaseSeconds: 300 });
        if (claimed.length === 0) {
          const r = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } });
          if (r.status !== 'pending' && r.status !== 'running') return;
          if (++idle > 2000) throw new Error('no progress');
          await new Promise((res) => setTimeout(res, 2)); // other lanes are finishing the current layer
          continue;
        }
        idle = 0;
        // As a worker's completion batcher does: the claimed batch's successes in one call
        // (completeTasks: one statement for DAG steps).
        const results = await completeTasks(hot, claimed.map((t) => ({
          taskId: t.id, runId: t.runId, jobId: t.jobId, scheduledFor: t.scheduledFor, attempt: t.attempt, nodeId, outcome: 'success' as const, onlyTask: t.onlyTask,
        })));
        for (const r of results) if (r.status === 'rejected') throw r.reason;
        done += claimed.length;
      }
    }));
    const totalMs = performance.now() - t0;
    const final = await db.run.findUniqueOrThrow({ where: { id: run.id } });
    await hot.$disconnect();
    console.log(`DAG: ${steps} steps, ${from.length} edges (layers of ${width}), ${lanes} in-process lanes, no-op handler`);
    console.log(`instantiate (triggerRun: tasks + dependencies + logs, one transaction): ${instantiateMs.toFixed(0)} ms`);
    console.log(`total (trigger -> run ${final.status}): ${(totalMs / 1000).toFixed(2)} s, ${done} tasks completed, ` +
      `${Math.round(done / ((totalMs - instantiateMs) / 1000))} tasks/s (claim + complete + propagation)`);

    const procs = Number(process.env.BENCH_DAG_WORKERS ?? 2);
    if (procs > 0) {
      const concurrency = process.env.BENCH_WORKER_CONCURRENCY ?? '64';
      const r = await byWorkers(db, url, job.id, procs, concurrency);
      console.log(`workers: ${procs} worker processes at concurrency ${concurrency}: run ${r.status}, ${r.tasks} tasks in ` +
        `${(r.driveMs / 1000).toFixed(2)} s from the first start to the run's end, ${Math.round(r.tasks / (r.driveMs / 1000))} tasks/s ` +
        `(trigger -> run finished ${(r.totalMs / 1000).toFixed(2)} s; CPU per task: workers ${Math.round((r.workersMs * 1000) / r.tasks)} µs, ` +
        `PostgreSQL backends ${Math.round((r.backendsMs * 1000) / r.tasks)} µs)`);
    }
    await db.$disconnect();
  });
}

/**
 * One run of the DAG job `jobId` by `procs` real worker processes, started (and given time to
 * connect and go idle) before the trigger. Times come from the database's rows: the drive is
 * the first task's started_at to the run's finished_at; the total is the run's created_at to
 * its finished_at.
 */
async function byWorkers(db: ReturnType<typeof createPrismaClient>, url: string, jobId: string, procs: number, concurrency: string) {
  const children = await startBenchWorkers(url, procs, concurrency);
  try {
    const deadline = Date.now() + 60_000;
    // idle: every process has registered (worker_nodes) and a second has passed for its first claim poll
    while ((await db.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM worker_nodes WHERE name LIKE 'bench-%'`))[0]!.n < procs) {
      if (children.some((ch) => ch.exitCode !== null)) throw new Error('a worker process exited early');
      if (Date.now() > deadline) throw new Error('the worker processes did not register within 60 s');
      await new Promise((res) => setTimeout(res, 100));
    }
    await new Promise((res) => setTimeout(res, 1000));
    // CPU of the worker processes and of the backends serving them (every connection to the bench
    // database but this script's own), from the trigger to the run's end
    const backends = async () => new Map((await db.$queryRawUnsafe<{ pid: number }[]>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name <> 'bench-dag'`)).map((r) => [r.pid, processCpuMs(r.pid)]));
    const workerCpu = () => children.reduce((sum, ch) => sum + processCpuMs(ch.pid), 0);
    const cpuFrom = { workers: workerCpu(), backends: await backends() };
    const { run } = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'bench', scheduledFor: new Date() });
    const until = Date.now() + 10 * 60_000;
    for (;;) {
      const r = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } });
      if (r.status !== 'pending' && r.status !== 'running') break;
      if (children.some((ch) => ch.exitCode !== null)) throw new Error('a worker process exited early');
      if (Date.now() > until) throw new Error('the run did not finish within 10 minutes');
      await new Promise((res) => setTimeout(res, 100));
    }
    const backendsNow = await backends();
    const workersMs = workerCpu() - cpuFrom.workers;
    const backendsMs = [...backendsNow].reduce((sum, [pid, ms]) => sum + ms - (cpuFrom.backends.get(pid) ?? 0), 0);
    const [row] = await db.$queryRawUnsafe<{ status: string; tasks: number; drive_ms: number; total_ms: number }[]>(
      `SELECT r.status::text AS status, (SELECT count(*)::int FROM tasks t WHERE t.run_id = r.id AND t.status = 'success') AS tasks,
              extract(epoch FROM r.finished_at - (SELECT min(started_at) FROM tasks t WHERE t.run_id = r.id)) * 1000 AS drive_ms,
              extract(epoch FROM r.finished_at - r.created_at) * 1000 AS total_ms
         FROM runs r WHERE r.id = $1::uuid`, run.id);
    return { status: row!.status, tasks: row!.tasks, driveMs: Number(row!.drive_ms), totalMs: Number(row!.total_ms), workersMs, backendsMs };
  } finally {
    await stopBenchWorkers(children);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
