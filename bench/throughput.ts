/**
 * Engine throughput benchmark (not a test): queues N one-step `builtin.noop`
 * runs, then measures the claim + complete loop in tasks/s with 1 and 2
 * processes. What is measured: lib/engine's claimTasks + completeTask driven
 * in-process with a no-op handler (no worker process, no handler execution,
 * no LISTEN/NOTIFY wake-ups) — i.e. the database cost of the queue itself.
 * Each claimer claims a batch of B tasks per round trip and completes them one
 * transaction each, C at a time.
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

const self = fileURLToPath(import.meta.url);

async function worker(url: string, nodeId: string, batch: number, concurrency: number): Promise<number> {
  const db = createPrismaClient(url, concurrency + 2);
  let done = 0;
  const lanes = Array.from({ length: concurrency }, async () => {
    for (;;) {
      const claimed = await claimTasks(db, { nodeId, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: batch, leaseSeconds: 60 });
      if (claimed.length === 0) return;
      for (const t of claimed) {
        const r = await completeTask(db, { taskId: t.id, attempt: t.attempt, nodeId, outcome: 'success' });
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
    process.send!({ done, ms: performance.now() - t0 });
    return;
  }
  const n = Number(process.argv[2] ?? 20000);
  const batch = Number(process.argv[3] ?? 20);
  const concurrency = Number(process.argv[4] ?? 8);
  const server = await startTestServer();
  const results: string[] = [];
  try {
    for (const procs of [1, 2]) {
      const name = `tickflow_bench_${process.pid}_${procs}`;
      await ensureDatabase(server.adminUrl, name);
      const url = withDatabase(server.adminUrl, name);
      await migrate(url);
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
      const check = new pg.Client({ connectionString: url });
      await check.connect();
      const { rows } = await check.query(`SELECT (SELECT count(*) FROM tasks WHERE status = 'success')::int AS ok,
        (SELECT count(*) FROM runs WHERE status = 'success')::int AS runs,
        (SELECT sum(success) FROM handler_stats_daily WHERE handler = 'builtin.noop')::int AS stats`);
      await check.end();
      results.push(`${procs} process(es) x ${concurrency} lanes, claim batch ${batch}: ${done} tasks in ${(ms / 1000).toFixed(2)} s = ${Math.round(done / (ms / 1000))} tasks/s ` +
        `(queueing ${n} runs via triggerRun took ${(qms / 1000).toFixed(2)} s = ${Math.round(n / (qms / 1000))} runs/s; check: ${rows[0].ok} tasks success, ${rows[0].runs} runs success, stats ${rows[0].stats})`);
      console.log(results.at(-1));
      const admin = new pg.Client({ connectionString: server.adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    }
  } finally {
    await server.stop();
  }
  console.log(`\nmeasured: lib/engine claimTasks + completeTask in-process, no-op handler, N=${n}\n${results.join('\n')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
