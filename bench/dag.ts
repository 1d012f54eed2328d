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
 * - tasks/s over the drive.
 *
 *   node --import tsx bench/dag.ts [steps=10000] [lanes=8] [width=100]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its
 * server), else an embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { withBenchDatabase } from './bench-db.ts';
import { createPrismaClient } from '../lib/db.ts';
import { createSqlPool, HOT_PATH_SETTINGS } from '../lib/sql-pool.ts';
import { claimTasks, completeTasks, triggerRun } from '../lib/engine/index.ts';

async function main() {
  const steps = Number(process.argv[2] ?? 10000);
  const lanes = Number(process.argv[3] ?? 8);
  const width = Number(process.argv[4] ?? 100);
  await withBenchDatabase('dag', async (url) => {
    const db = createPrismaClient(url, lanes + 2);
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
    await db.$disconnect();
    console.log(`DAG: ${steps} steps, ${from.length} edges (layers of ${width}), ${lanes} in-process lanes, no-op handler`);
    console.log(`instantiate (triggerRun: tasks + dependencies + logs, one transaction): ${instantiateMs.toFixed(0)} ms`);
    console.log(`total (trigger -> run ${final.status}): ${(totalMs / 1000).toFixed(2)} s, ${done} tasks completed, ` +
      `${Math.round(done / ((totalMs - instantiateMs) / 1000))} tasks/s (claim + complete + propagation)`);
  });
}

main().catch((e) => { console.error(e); process.exit(1); });
