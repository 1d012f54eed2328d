/**
 * Throughput benchmark (not a test): queues N one-step `builtin.noop` runs and
 * measures tasks/s with 1 and 2 processes, two ways:
 * - real workers: compiled worker processes, as `npm run worker` runs them (lib/infra/worker-build.ts)
 *   (TICKFLOW_CONCURRENCY=16, or BENCH_WORKER_CONCURRENCY) against the bench database — claimer, runner,
 *   handler, completion, LISTEN/NOTIFY, heartbeat all included. Measured from
 *   the first claim (min tasks.started_at) to the last completion (max
 *   runs.finished_at), once every run is `success`; worker start-up is excluded.
 * - in-process engine loop: lib/engine's claimTasks + completeTask driven with
 *   no handler (no worker process, no LISTEN/NOTIFY wake-ups) — the database
 *   cost of the queue itself. Each claimer claims a batch of B tasks per round
 *   trip and completes them one at a time, C lanes per process.
 * Queueing (triggerRun, 4 at a time) is timed too.
 *
 *   node --import tsx bench/throughput.ts [N=20000] [batch=20] [concurrency=8]
 *
 * Database: DATABASE_URL when set (a throwaway database is created on its
 * server), else an embedded PostgreSQL started by tests/helpers/test-server.ts.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPrismaClient } from '../lib/db.ts';
import { claimTasks, completeTask, triggerRun } from '../lib/engine/index.ts';
import { ensureDatabase, migrate, withDatabase } from '../lib/infra/migrate.ts';
import { startTestServer } from '../tests/helpers/test-server.ts';
import { startBenchWorkers, stopBenchWorkers } from './bench-db.ts';

const self = fileURLToPath(import.meta.url);
/** TICKFLOW_CONCURRENCY of the real worker processes */
const workerConcurrency = process.env.BENCH_WORKER_CONCURRENCY ?? '16';

async function worker(url: string, nodeId: string, batch: number, concurrency: number): Promise<number> {
  const db = createPrismaClient(url, concurrency + 2);
  let done = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    for (;;) {
      const claimed = await claimTasks(db, { nodeId, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: batch, leaseSeconds: 60 });
      if (claimed.length === 0) return;
      for (const t of claimed) {
        const r = await completeTask(db, { taskId: t.id, attempt: t.attempt, nodeId, outcome: 'success', onlyTask: t.onlyTask });
        if (r.applied) done++;
      }
    }
  });
  await Promise.all(lanes);
  await db.$disconnect();
  return done;
}

/** N one-step builtin.noop jobs (one run each, so no block strategy holds any back), triggered 4 at a time. */
async function queue(url: string, n: number): Promise<number> {
  const db = createPrismaClient(url, 4);
  const tag = randomBytes(3).toString('hex');
  await db.$executeRawUnsafe(`
    INSERT INTO jobs (key, name, schedule_kind)
    SELECT 'bench.noop.' || $1 || '.' || g, 'bench noop', 'manual' FROM generate_series(1, $2::int) g`, tag, n);
  await db.$executeRawUnsafe(`
    INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM jobs WHERE key LIKE 'bench.noop.' || $1 || '.%'`, tag);
  const ids = await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM jobs WHERE key LIKE 'bench.noop.' || $1 || '.%'`, tag);
  const now = new Date();
  const t0 = performance.now();
  let i = 0;
  await Promise.all(Array.from({ length: 4 }, async () => {
    while (i < ids.length) {
      const id = ids[i++].id;
      await triggerRun(db, { jobId: id, trigger: 'api', triggeredBy: 'bench', scheduledFor: now });
    }
  }));
  const ms = performance.now() - t0;
  await db.$disconnect();
  return ms;
}

async function main() {
  if (process.argv[2] === '--child') {
    const [, , , url, nodeId, batch, conc] = process.argv;
    const t0 = performance.now();
    const done = await worker(url, nodeId, Number(batch), Number(conc));
    process.send!({ done, ms: performance.now() - t0 }, () => process.exit(0));
    return;
  }
  const n = Number(process.argv[2] ?? 20000);
  const batch = Number(process.argv[3] ?? 20);
  const concurrency = Number(process.argv[4] ?? 8);
  const server = await startTestServer();
  const results: string[] = [];
  const fresh = async (label: string): Promise<{ name: string; url: string }> => {
    const name = `tickflow_bench_${process.pid}_${label}`;
    await ensureDatabase(server.adminUrl, name);
    const url = withDatabase(server.adminUrl, name);
    await migrate(url);
    return { name, url };
  };
  const drop = async (name: string) => {
    const admin = new pg.Client({ connectionString: server.adminUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  try {
    for (const procs of [1, 2]) {
      const { name, url } = await fresh(`w${procs}`);
      const qms = await queue(url, n);
      const r = await realWorkers(url, procs, n);
      results.push(`real workers: ${procs} process(es) x TICKFLOW_CONCURRENCY=${workerConcurrency}: ${r.ok} tasks in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(r.ok / (r.ms / 1000))} tasks/s ` +
        `(queueing ${n} runs via triggerRun took ${(qms / 1000).toFixed(2)} s = ${Math.round(n / (qms / 1000))} runs/s; check: ${r.ok} tasks success, ${r.runs} runs success, stats ${r.stats})`);
      console.log(results.at(-1));
      await drop(name);
    }
    for (const procs of [1, 2]) {
      const { name, url } = await fresh(`e${procs}`);
      const qms = await queue(url, n);
      const t0 = performance.now();
      const outs = await Promise.all(Array.from({ length: procs }, (_, p) => new Promise<{ done: number; ms: number }>((resolve, reject) => {
        const child = fork(self, ['--child', url, `bench-node-${p}`, String(batch), String(concurrency)], { execArgv: ['--import', 'tsx'] });
        child.on('message', (m) => resolve(m as { done: number; ms: number }));
        child.on('error', reject);
        child.on('exit', (code) => { if (code) reject(new Error(`child exited ${code}`)); });
      })));
      const ms = performance.now() - t0;
      const done = outs.reduce((a, o) => a + o.done, 0);
      const c = await counts(url);
      results.push(`in-process engine loop: ${procs} process(es) x ${concurrency} lanes, claim batch ${batch}: ${done} tasks in ${(ms / 1000).toFixed(2)} s = ${Math.round(done / (ms / 1000))} tasks/s ` +
        `(queueing ${n} runs via triggerRun took ${(qms / 1000).toFixed(2)} s = ${Math.round(n / (qms / 1000))} runs/s; check: ${c.ok} tasks success, ${c.runs} runs success, stats ${c.stats})`);
      console.log(results.at(-1));
      await drop(name);
    }
  } finally {
    await server.stop();
  }
  console.log(`\nmeasured: N=${n} one-step builtin.noop runs; real worker processes, then lib/engine claimTasks + completeTask in-process\n${results.join('\n')}`);
}

async function counts(url: string): Promise<{ ok: number; runs: number; stats: number; ms: number }> {
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const { rows } = await check.query(`SELECT (SELECT count(*) FROM tasks WHERE status = 'success')::int AS ok,
    (SELECT count(*) FROM runs WHERE status = 'success')::int AS runs,
    (SELECT coalesce(sum(success), 0) FROM handler_stats_daily WHERE handler = 'builtin.noop')::int AS stats,
    coalesce(extract(epoch FROM (SELECT max(finished_at) FROM runs) - (SELECT min(started_at) FROM tasks)) * 1000, 0)::float8 AS ms`);
  await check.end();
  return rows[0];
}

/**
 * Starts `procs` real worker processes on the queued database, waits until every run is
 * success (or 10 min), stops them with SIGTERM. Time = first claim -> last run finished (DB clock).
 */
async function realWorkers(url: string, procs: number, n: number): Promise<{ ok: number; runs: number; stats: number; ms: number }> {
  const children = await startBenchWorkers(url, procs, workerConcurrency);
  const deadline = Date.now() + 10 * 60_000;
  let c = await counts(url);
  try {
    while (c.runs < n && Date.now() < deadline) {
      if (children.some((ch) => ch.exitCode !== null)) throw new Error('a worker process exited early');
      await new Promise((r) => setTimeout(r, 250));
      c = await counts(url);
    }
  } finally {
    await stopBenchWorkers(children);
  }
  return c;
}

main().catch((e) => { console.error(e); process.exit(1); });
