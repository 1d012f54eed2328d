/**
 * Cost of task log lines (not a test): tasks/s of one handler writing 100 log lines per
 * task against the same handler writing none (docs/task-logs.md quotes the figures).
 *
 * For each `workMs` (the handler's own work: an async wait, 0 = a handler that only
 * logs) and each variant (0 lines, then 100 lines of ~60 characters with a small fields
 * object), N one-step runs are queued, then ONE in-process worker (createWorker,
 * concurrency C, default task-log settings: flush every 200 ms on the writer's own
 * connection) drains them. tasks/s = N / (first claim -> last run finished, database
 * clock), as bench/throughput.ts measures it. Also printed: the lines stored (all N × 100
 * expected: none dropped), the writer's flushes, and how many lines were still buffered
 * when the last run finished (the writer's lag behind the queue).
 *
 *   node --import tsx bench/task-logs.ts [N=2000] [workMs list=0,20] [concurrency=16]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its server), else an
 * embedded PostgreSQL started by tests/helpers/test-server.ts (fsync off).
 */
import { withBenchDatabase } from './bench-db.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createPrismaClient } from '../lib/db.ts';
import { triggerRun } from '../lib/engine/index.ts';
import { log } from '../lib/log.ts';
import { createWorker } from '../worker/create-worker.ts';
import { loadWorkerConfig } from '../worker/config.ts';
import type { Handler } from '../worker/handlers/index.ts';

const HANDLER = 'bench.log';

/** The benchmarked handler: waits `workMs`, writing `lines` lines spread over that time. */
const handler: Handler = async (ctx) => {
  const lines = Number(ctx.payload.lines ?? 0);
  const workMs = Number(ctx.payload.workMs ?? 0);
  const half = Math.floor(lines / 2);
  for (let i = 1; i <= half; i++) ctx.taskLog.info(`processing item ${i} of ${lines} for order ${ctx.taskId.slice(0, 8)}-${i}`, { i });
  if (workMs > 0) await new Promise((r) => setTimeout(r, workMs));
  for (let i = half + 1; i <= lines; i++) ctx.taskLog.info(`processing item ${i} of ${lines} for order ${ctx.taskId.slice(0, 8)}-${i}`, { i });
  return null;
};

async function queue(url: string, n: number, payload: Record<string, number>): Promise<string> {
  const db = createPrismaClient(url, 4);
  const tag = randomBytes(3).toString('hex');
  await db.$executeRawUnsafe(
    `INSERT INTO jobs (key, name, schedule_kind) SELECT 'bench.logs.' || $1 || '.' || g, 'bench logs', 'manual' FROM generate_series(1, $2::int) g`,
    tag, n,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO job_steps (job_id, key, handler, payload) SELECT id, 'main', $2, $3::jsonb FROM jobs WHERE key LIKE 'bench.logs.' || $1 || '.%'`,
    tag, HANDLER, JSON.stringify(payload),
  );
  const ids = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM jobs WHERE key LIKE 'bench.logs.' || $1 || '.%'`, tag);
  let i = 0;
  const now = new Date();
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (i < ids.length) await triggerRun(db, { jobId: ids[i++]!.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: now });
  }));
  await db.$disconnect();
  return tag;
}

async function drain(url: string, n: number, payload: Record<string, number>, concurrency: number) {
  const tag = await queue(url, n, payload);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const scope = `FROM runs r JOIN jobs j ON j.id::text = r.job_id::text WHERE j.key LIKE 'bench.logs.${tag}.%'`;
  const worker = createWorker({
    config: { ...loadWorkerConfig({ ...process.env, DATABASE_URL: url }), concurrency, roles: ['claim'], pollMs: 100, name: 'bench' },
    handlers: { [HANDLER]: handler },
    logger: log('bench').child({}, { level: 'warn' }),
  });
  await worker.start();
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { rows } = await check.query(`SELECT count(*)::int AS n ${scope} AND r.status = 'success'`);
    if (rows[0].n >= n || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const lastDoneWall = Date.now();
  const buffered = worker.taskLogs.buffered;
  await worker.stop({ graceMs: 60_000 });
  const { rows } = await check.query(
    `SELECT extract(epoch FROM max(r.finished_at) - min(r.started_at)) * 1000 AS ms, max(r.finished_at) AS last ${scope}`,
  );
  const ms = Number(rows[0].ms);
  const lines = await check.query(
    `SELECT count(*)::int AS n, max(l.time) AS last FROM task_log_lines l JOIN tasks t ON t.id = l.task_id JOIN jobs j ON j.id::text = t.job_id WHERE j.key LIKE 'bench.logs.${tag}.%'`,
  );
  await check.end();
  return {
    tasksPerSecond: (n / ms) * 1000,
    ms,
    lines: lines.rows[0].n as number,
    bufferedAtLastRun: buffered,
    flushes: worker.taskLogs.stats.flushes,
    waitedMs: Date.now() - lastDoneWall,
  };
}

async function main() {
  const n = Number(process.argv[2] ?? 2000);
  const works = (process.argv[3] ?? '0,20').split(',').map(Number);
  const concurrency = Number(process.argv[4] ?? 16);
  await withBenchDatabase('tasklogs', async (url) => {
    if (process.env.BENCH_DROP_INDEX) {
      // diagnostics: how much of the cost is one index (e.g. task_log_lines_plain_trgm_idx)
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP INDEX ${process.env.BENCH_DROP_INDEX.replace(/[^a-z_]/g, '')}`);
      await c.end();
      console.log(`without index ${process.env.BENCH_DROP_INDEX}`);
    }
    console.log(`N = ${n} one-step runs per variant, one in-process worker, concurrency ${concurrency}`);
    for (const workMs of works) {
      const quiet = await drain(url, n, { lines: 0, workMs }, concurrency);
      const chatty = await drain(url, n, { lines: 100, workMs }, concurrency);
      console.log(`handler work ${workMs} ms: 0 lines ${quiet.tasksPerSecond.toFixed(0)} tasks/s; 100 lines ${chatty.tasksPerSecond.toFixed(0)} tasks/s` +
        ` (${Math.round(chatty.tasksPerSecond * 100)} lines/s); ratio ${(chatty.tasksPerSecond / quiet.tasksPerSecond).toFixed(2)}`);
      console.log(`   100 lines: ${chatty.lines} of ${n * 100} lines stored in ${chatty.flushes} flushes; ${chatty.bufferedAtLastRun} were still buffered when the last run` +
        ` finished (stored by the worker's stop, which took ${chatty.waitedMs} ms)`);
    }
  });
}

main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
