/**
 * Fixtures for the worker and tick integration tests (not a test file itself):
 * jobs inserted directly with Prisma so a test controls next_run_at and every
 * policy column exactly, worker configs for in-process workers, and spawning
 * real worker processes: the compiled worker with its production flags
 * (lib/infra/worker-build.ts; built by tests/global-setup.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { PrismaClient } from '../../lib/db.ts';
import { triggerRun } from '../../lib/engine/index.ts';
import { workerNodeArgs } from '../../lib/infra/worker-build.ts';
import { afterAll, afterEach, inject } from 'vitest';
import type { WorkerConfig } from '../../worker/config.ts';
import type { Worker } from '../../worker/create-worker.ts';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export interface StepFixture {
  key?: string;
  handler: string;
  payload?: Record<string, unknown>;
  config?: Record<string, unknown>;
  timeoutSeconds?: number;
  maxRetries?: number;
}

export interface JobFixture {
  key?: string;
  scheduleKind?: 'cron' | 'interval' | 'once' | 'manual';
  cron?: string;
  timezone?: string;
  intervalSeconds?: number;
  runAt?: Date;
  startAt?: Date;
  endAt?: Date;
  misfirePolicy?: 'skip' | 'fire_once' | 'fire_all';
  misfireMaxCatchup?: number;
  blockStrategy?: 'discard_later' | 'serial_execution' | 'cover_early';
  nextRunAt?: Date | null;
  timeoutSeconds?: number;
  maxRetries?: number;
  backoffBaseSeconds?: number;
  backoffJitter?: number;
  routingNodeGroup?: string | null;
  createdAt?: Date;
  status?: 'active' | 'paused';
  steps?: StepFixture[];
}

export async function insertJob(db: PrismaClient, f: JobFixture = {}): Promise<string> {
  const id = randomUUID();
  const kind = f.scheduleKind ?? 'cron';
  await db.job.create({
    data: {
      id,
      key: f.key ?? `job-${id.slice(0, 8)}`,
      name: f.key ?? `job ${id.slice(0, 8)}`,
      scheduleKind: kind,
      cronExpression: kind === 'cron' ? (f.cron ?? '* * * * *') : null,
      timezone: f.timezone ?? 'UTC',
      intervalSeconds: kind === 'interval' ? (f.intervalSeconds ?? 60) : null,
      runAt: kind === 'once' ? (f.runAt ?? new Date()) : null,
      startAt: f.startAt ?? null,
      endAt: f.endAt ?? null,
      misfirePolicy: f.misfirePolicy ?? 'fire_once',
      misfireMaxCatchup: f.misfireMaxCatchup ?? 10,
      blockStrategy: f.blockStrategy ?? 'serial_execution',
      nextRunAt: f.nextRunAt === undefined ? null : f.nextRunAt,
      timeoutSeconds: f.timeoutSeconds ?? 60,
      maxRetries: f.maxRetries ?? 0,
      backoffBaseSeconds: f.backoffBaseSeconds ?? 0,
      backoffJitter: f.backoffJitter ?? 0,
      routingNodeGroup: f.routingNodeGroup ?? null,
      status: f.status ?? 'active',
      createdAt: f.createdAt ?? new Date('2026-01-01T00:00:00Z'),
      steps: {
        create: (f.steps ?? [{ handler: 'builtin.noop' }]).map((s, i) => ({
          key: s.key ?? (i === 0 ? 'main' : `s${i}`),
          handler: s.handler,
          payload: (s.payload ?? {}) as object,
          config: (s.config ?? {}) as object,
          timeoutSeconds: s.timeoutSeconds ?? null,
          maxRetries: s.maxRetries ?? null,
        })),
      },
    },
  });
  return id;
}

/** A worker config for in-process workers: fast loops, no real env needed. */
export function testWorkerConfig(url: string, over: Partial<WorkerConfig> = {}): WorkerConfig {
  return {
    databaseUrl: url,
    concurrency: 4,
    group: 'default',
    labels: {},
    name: 'test-worker',
    leaseSeconds: 30,
    pollMs: 100,
    tickMs: 200,
    lookaheadMs: 0,
    claimAheadMs: 0,
    prefetchMultiplier: 1,
    tickBatch: 100,
    misfireGraceMs: 60_000,
    heartbeatMs: 500,
    reapMs: 250,
    nodeOfflineSeconds: 60,
    shutdownGraceMs: 10_000,
    allowShell: false,
    shellKillGraceMs: 500,
    sqlConnections: {},
    roles: ['tick', 'claim', 'reap'],
    dbPoolSize: 6,
    ...over,
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  output(): string;
  /** resolves with the node id once the process logged "worker ready" */
  ready: Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Worker processes for a test file, killed after each test: `start(env)` spawns one (spawnWorker) on the database `db`
 * names when it is called, with `defaults` under `env`; after each test every one still running
 * is SIGKILLed and awaited (useWorkerProcesses stops them gracefully instead), so a failing test
 * leaves no worker claiming from the next test's rows.
 * `track` adds a process spawned otherwise (e.g. with another URL) to the same clean-up.
 */
export function useSpawnedWorkers(db: { url: string }, defaults: Record<string, string> = { TICKFLOW_DB_POOL: '4' }) {
  const procs: WorkerProcess[] = [];
  afterEach(async () => {
    for (const p of procs.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGKILL');
        await p.exited;
      }
    }
  });
  const track = (p: WorkerProcess): WorkerProcess => {
    procs.push(p);
    return p;
  };
  return { start: (env: Record<string, string> = {}) => track(spawnWorker(db.url, { ...defaults, ...env })), track };
}

/** Spawns a worker process (the compiled worker, as `npm run worker` runs it) with DATABASE_URL and extra env. */
export function spawnWorker(url: string, env: Record<string, string> = {}): WorkerProcess {
  const bundle = inject('workerBundle');
  if (bundle.startsWith('build failed: ')) throw new Error(`the compiled worker (tests/global-setup.ts): ${bundle}`);
  const child = spawn(process.execPath, workerNodeArgs(bundle), {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: url,
      LOG_LEVEL: 'info',
      TICKFLOW_POLL_MS: '200',
      TICKFLOW_TICK_MS: '200',
      TICKFLOW_REAP_MS: '250',
      ...env,
    } as unknown as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let resolveReady!: (id: string) => void;
  let rejectReady!: (e: Error) => void;
  const ready = new Promise<string>((res, rej) => {
    resolveReady = res;
    rejectReady = rej;
  });
  const onData = (c: Buffer) => {
    out += c.toString();
    const m = /"nodeId":"([^"]+)"[^\n]*"msg":"worker ready"/.exec(out);
    if (m) resolveReady(m[1]!);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => {
    child.once('exit', (code, signal) => {
      rejectReady(new Error(`worker exited (${code ?? signal}) before ready:\n${out}`));
      res({ code, signal });
    });
  });
  ready.catch(() => undefined);
  return { child, output: () => out, ready, exited };
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes (then throws with `what`). */
export async function waitFor<T>(fn: () => Promise<T | null | undefined | false> | T | null | undefined | false, timeoutMs: number, what: string, stepMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Creates a manual job from `f`, triggers it once, and returns the id of its (first) task. */
export async function triggerOneTask(db: PrismaClient, f: JobFixture, scheduledFor = new Date()): Promise<string> {
  const jobId = await insertJob(db, { scheduleKind: 'manual', ...f });
  const { run } = await triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor });
  const [task] = await db.task.findMany({ where: { runId: run.id } });
  return task!.id;
}

/** Waits (polling, real time) until task `id` is final, and returns its row. */
export function waitForFinalTask(db: PrismaClient, id: string, ms = 15_000) {
  return waitFor(async () => {
    const x = await db.task.findUniqueOrThrow({ where: { id } });
    return ['success', 'dead', 'cancelled', 'skipped'].includes(x.status) ? x : null;
  }, ms, `task ${id} to finish`);
}

/**
 * When attempt `attempt` of task `id` was claimed, by its pending -> running task_logs row
 * (written with the worker's clock). Durations measured from here leave out the claim latency
 * of a busy machine, which is not what a timeout test is about.
 */
export async function claimedAt(db: PrismaClient, id: string, attempt = 1): Promise<number> {
  const log = await waitFor(
    () => db.taskLog.findFirst({ where: { taskId: id, attempt, toStatus: 'running' } }),
    30_000,
    `task ${id} attempt ${attempt} to be claimed`,
  );
  return log.createdAt.getTime();
}

/** Stops a spawned worker process if it still runs: SIGTERM, SIGKILL after `killAfterMs`; resolves once it exited. */
export async function stopWorkerProcess(p: WorkerProcess, killAfterMs = 10_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), killAfterMs);
  await p.exited;
  clearTimeout(timer);
}

/**
 * Worker processes a test file spawns (spawnWorker): push them here and each one still
 * running is stopped (stopWorkerProcess) after every test, or after the file with `'all'`.
 */
export function useWorkerProcesses(when: 'each' | 'all' = 'each'): WorkerProcess[] {
  const procs: WorkerProcess[] = [];
  (when === 'each' ? afterEach : afterAll)(async () => {
    await Promise.all(procs.splice(0).map((p) => stopWorkerProcess(p)));
  });
  return procs;
}

/**
 * Workers a test file starts in-process: push them here and each is stopped (no grace)
 * after every test.
 */
export function useWorkers(): Worker[] {
  const workers: Worker[] = [];
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.stop({ graceMs: 0 }).catch(() => undefined)));
  });
  return workers;
}
