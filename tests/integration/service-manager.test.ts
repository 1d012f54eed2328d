/**
 * `npm start` under a service manager (docs/operations.md "Stopping"): every
 * way of stopping the stack — SIGTERM or SIGINT to npm, to the launcher, to the
 * supervisor or to npm's whole process group, and npm or the launcher dying —
 * drains the worker (a task running at the signal finishes and is recorded),
 * stops the console and then the embedded database, exits 0 and leaves no
 * process behind; a second signal stops at once.
 *
 * Real processes throughout: `npm` running the real scripts/start.ts, which
 * starts the embedded PostgreSQL, the real console and a real worker. The
 * console is the production build (`npm start`) when `.next` is current, else
 * `npm run dev` (the same supervisor, with `next dev`): no test pays a 2-minute
 * `next build`, and none is skipped. `npm test` builds the console before this stage when
 * it runs its e2e stage too, so there this file exercises `npm start`; run alone on a checkout
 * whose build is stale, it exercises `next dev`. The tests that
 * start a console stay in this one file: vitest runs a file's tests one after
 * another, and `next dev` allows one server per checkout.
 *
 * Also here: a database restart under a running stack (the console's 503s), the embedded
 * PostgreSQL killed under a running stack (the supervisor restarts it, or gives up and exits 1),
 * `npm run worker` stopped by Ctrl-C or SIGTERM, and `npm start`, `npm run migrate` and
 * `npm run worker` on a DATABASE_URL they cannot use (a missing database, a wrong password,
 * a closed port).
 *
 * Not on useTestDatabase: each `npm start` stack runs its own embedded PostgreSQL, and the
 * tests on an external database take a fresh one per test (createTestDatabase).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { networkInterfaces } from 'node:os';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { consoleBuildIsStale } from '../../lib/infra/console-build.ts';
import { startEmbeddedPostgres } from '../../lib/infra/embedded-postgres.ts';
import { ensureDatabase, migrate, withDatabase } from '../../lib/infra/migrate.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { insertJob, waitFor } from './worker-fixtures.ts';
import { freePort, portFree } from '../helpers/free-port.ts';
import { recordProcess, signalGroupIfOurs, signalIfSame, stillExists, type ProcessRecord } from '../helpers/process-identity.ts';
import { signalProcessGroup } from '../../lib/infra/process-group.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCRIPT = consoleBuildIsStale(ROOT) ? 'dev' : 'start';
const GRACE_MS = 15_000;
/** The worker process `npm start` runs: the compiled worker (lib/infra/worker-build.ts). */
const COMPILED_WORKER = /dist\/worker\/[0-9a-f]+\/index\.mjs/;
const TOKEN = `tf-test-${randomBytes(12).toString('hex')}`;
const dataDir = path.join(ROOT, '.tickflow', `service-test-${process.pid}`);
let port = 0;
let pgPort = 0;

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/** Parent pid of every live process, from /proc (Linux). */
function processTable(): Map<number, { ppid: number; cmdline: string }> {
  const table = new Map<number, { ppid: number; cmdline: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      table.set(Number(entry), { ppid, cmdline });
    } catch { /* it exited meanwhile */ }
  }
  return table;
}

interface Stack {
  npm: ChildProcess;
  launcher: number;
  supervisor: number;
  console: number;
  worker: number;
  postmaster: number;
  /** each pid above as recorded while it ran, so a clean-up never signals a later process with its number */
  known: Map<number, ProcessRecord>;
  output(): string;
  /** npm's exit, as seen by the test (its parent) */
  npmExited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const stacks: Stack[] = [];

async function api(method: string, route: string, body?: unknown): Promise<{ status: number; json: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, json: await res.json().catch(() => null) };
}

/** `npm start` (or `npm run dev`) in a process group of its own, as a service manager runs it; resolves once the console answers and the worker is online. */
async function startStack(extraEnv: Record<string, string> = {}): Promise<Stack> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    TICKFLOW_PG_PORT: String(pgPort),
    TICKFLOW_DATA_DIR: dataDir,
    TICKFLOW_SEED: '0',
    TICKFLOW_SHUTDOWN_GRACE_MS: String(GRACE_MS),
    TICKFLOW_API_TOKEN: TOKEN,
    TICKFLOW_ADMIN_PASSWORD: 'service-test-password',
    LOG_LEVEL: 'info',
    NEXT_TELEMETRY_DISABLED: '1',
  };
  delete env.DATABASE_URL;
  delete env.VITEST;
  Object.assign(env, extraEnv);
  const external = Boolean(extraEnv.DATABASE_URL);
  const npm = spawn('npm', ['run', '--silent', SCRIPT], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout!.on('data', (d) => { out += d; });
  npm.stderr!.on('data', (d) => { out += d; });
  const npmExited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
  const partial = { npm, output: () => out, npmExited } as Stack;
  stacks.push(partial);
  await waitFor(async () => {
    if (npm.exitCode !== null) throw new Error(`npm exited early:\n${out}`);
    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.json()).catch(() => null);
    return health?.workers >= 1;
  }, 180_000, 'the console and an online worker', 200);
  // `next dev` compiles a route on its first request: do it now, not while a task runs.
  await api('GET', '/runs/00000000-0000-4000-8000-000000000000');
  await api('GET', '/jobs/00000000-0000-4000-8000-000000000000');
  const table = processTable();
  const childOf = (pid: number, match: RegExp) => [...table].find(([, p]) => p.ppid === pid && match.test(p.cmdline))?.[0];
  const launcher = childOf(npm.pid!, /scripts\/start\.ts/);
  const supervisor = launcher && childOf(launcher, /scripts\/start\.ts/);
  const consolePid = supervisor && childOf(supervisor, /next/);
  const worker = supervisor && childOf(supervisor, COMPILED_WORKER);
  const postmaster = external ? 0 : Number(readFileSync(path.join(dataDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!launcher || !supervisor || !consolePid || !worker) throw new Error(`process tree not found: ${JSON.stringify({ launcher, supervisor, consolePid, worker })}`);
  const known = new Map([npm.pid!, launcher, supervisor, consolePid, worker, postmaster].filter((pid) => pid > 0).map((pid) => [pid, recordProcess(pid)]));
  return Object.assign(partial, { launcher, supervisor, console: consolePid, worker, postmaster, known });
}

/** A manual job whose one task sleeps `ms` (ignoring cancellation when `ignoreAbort`), triggered and running; returns the run id. */
async function runningTask(ms: number, ignoreAbort = false): Promise<string> {
  const job = await api('POST', '/jobs', {
    key: `svc.${randomBytes(4).toString('hex')}`,
    name: 'service test',
    schedule: { kind: 'manual' },
    handler: ignoreAbort ? 'builtin.ignore-abort' : 'builtin.sleep',
    payload: { ms },
    policy: { timeoutSeconds: 120, maxRetries: 0 },
  });
  expect(job.status, JSON.stringify(job.json)).toBe(201);
  const run = await api('POST', `/jobs/${job.json.id}/trigger`, {});
  expect(run.status, JSON.stringify(run.json)).toBe(201);
  const runId: string = run.json.id;
  await waitFor(async () => {
    const status = (await api('GET', `/runs/${runId}`)).json?.tasks?.[0]?.status;
    if (status !== undefined && status !== 'pending' && status !== 'running') throw new Error(`the task ended (${status}) before the test saw it running`);
    return status === 'running';
  }, 30_000, 'the task running', 200);
  return runId;
}

/** Every process of the stack has exited; returns how long that took. */
async function allGone(stack: Stack, since: number, timeoutMs: number): Promise<number> {
  const pids = [stack.npm.pid!, stack.launcher, stack.supervisor, stack.console, stack.worker, stack.postmaster].filter((pid) => pid > 0);
  // each as recorded while it ran: a later process given one of these numbers is not the stack's
  const records = pids.map((pid) => stack.known.get(pid) ?? recordProcess(pid));
  await waitFor(() => !records.some(stillExists), timeoutMs, `all of ${JSON.stringify(pids)} to exit\n${stack.output()}`, 200);
  const tookMs = Date.now() - since;
  // and nothing else of the console (next dev's server process) still holds the port
  expect(await portFree(port)).toBe(true);
  return tookMs;
}

/** Lines of the supervisor's own stop sequence, in the order they were printed. */
function stopSequence(output: string): string[] {
  return output.split('\n').filter((l) => /^\[tickflow\] (worker stopped|console stopped|embedded database stopped|stopped)\b/.test(l)).map((l) => l.replace(/ \(.*\)$/, ''));
}

/**
 * The status of `runId`'s task and the stop signal its worker recorded (the Workers page's "stopped
 * cleanly on …"), read from the stopped stack's data directory.
 */
async function afterStop(runId: string): Promise<{ taskStatus: string; stopSignal: string | null }> {
  const server = await startEmbeddedPostgres({ dataDir: path.join(dataDir, 'pgdata'), port: pgPort, log: () => undefined });
  const client = new pg.Client({ connectionString: withDatabase(server.adminUrl, 'tickflow') });
  try {
    await client.connect();
    const { rows } = await client.query<{ status: string }>('SELECT status FROM tasks WHERE run_id = $1', [runId]);
    // the worker that stopped last is this stack's (the data directory is shared by the tests of this file)
    const { rows: nodes } = await client.query<{ stop_signal: string | null }>('SELECT stop_signal FROM worker_nodes ORDER BY stopped_at DESC NULLS LAST LIMIT 1');
    return { taskStatus: rows[0]!.status, stopSignal: nodes[0]?.stop_signal ?? null };
  } finally {
    await client.end().catch(() => undefined);
    await server.stop();
  }
}

/**
 * The common proof: the task running at the stop finished and was recorded
 * (the worker drained before the database stopped), the stop sequence was
 * worker → console → database, nothing is left running, within the grace period.
 */
async function expectOrderlyStop(stack: Stack, runId: string, since: number, npmCode: 'observed' | 'unobservable', workerSignal: 'SIGTERM' | 'SIGINT' = 'SIGTERM') {
  const tookMs = await allGone(stack, since, GRACE_MS + 30_000);
  if (npmCode === 'observed') expect(await stack.npmExited).toEqual({ code: 0, signal: null });
  const out = stack.output();
  expect(out).toMatch(/"drained":true/);
  expect(stopSequence(out)).toEqual(['[tickflow] worker stopped', '[tickflow] console stopped', '[tickflow] embedded database stopped', '[tickflow] stopped']);
  expect(out).toMatch(/\[tickflow\] worker stopped \(exit 0\)/);
  // the database says how it ended too: a fast shutdown leaves no crash recovery for the next start
  expect(out).toMatch(/\[tickflow\] embedded database stopped \(fast shutdown, exit 0\)/);
  // a console that stopped on the launcher's SIGTERM says so, not a bare exit code
  expect(out).toMatch(/\[tickflow\] console stopped \((exit 0|stopped on SIGTERM as asked, exit 143)\)/);
  // the 4 s task, then the console and the database: well inside the grace period
  expect(tookMs).toBeLessThan(GRACE_MS);
  // the worker was told the way the stack was: an operator's SIGINT stays a SIGINT on the Workers page
  expect(await afterStop(runId)).toEqual({ taskStatus: 'success', stopSignal: workerSignal });
}

beforeAll(async () => {
  port = await freePort();
  pgPort = await freePort();
});

afterEach(async () => {
  // A failed test must not leave its stack running for the next one.
  for (const stack of stacks.splice(0)) {
    // (a stack that startStack did not finish has no `known`: npm, our own child, is all there is to stop)
    if (!stack.known) { signalProcessGroup(stack.npm, 'SIGKILL'); continue; }
    for (const pid of [stack.worker, stack.console, stack.supervisor, stack.launcher, stack.npm.pid!]) {
      const p = stack.known.get(pid);
      if (p && alive(pid)) { signalGroupIfOurs(p, 'SIGKILL'); signalIfSame(p, 'SIGKILL'); }
    }
    const postmaster = stack.known.get(stack.postmaster);
    if (postmaster) signalIfSame(postmaster, 'SIGQUIT');
  }
});

afterAll(() => {
  if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
});

type Target = 'npm' | 'launcher' | 'supervisor' | "npm's process group";
const pidOf = (stack: Stack, target: Target) =>
  target === 'npm' ? stack.npm.pid! : target === 'launcher' ? stack.launcher : target === 'supervisor' ? stack.supervisor : -stack.npm.pid!;

describe(`npm ${SCRIPT === 'dev' ? 'run dev' : 'start'} stops in order, exits 0, and leaves nothing behind`, () => {
  // Each process of the chain, and both signals. The launcher and the supervisor take SIGINT,
  // SIGTERM and SIGHUP through one handler (scripts/start.ts), and npm forwards either to the
  // launcher, so one signal each covers their paths: SIGINT to npm reaches the launcher as SIGINT,
  // SIGTERM to npm is the TICKFLOW_HOST test's stop, and SIGINT to the supervisor is the test of
  // its process group below. A whole process group, where every process gets the signal at once
  // (a terminal's Ctrl-C, systemd's control-group stop), gets both.
  for (const [signal, target] of [
    ['SIGINT', 'npm'], ['SIGTERM', 'launcher'], ['SIGTERM', 'supervisor'], ['SIGTERM', "npm's process group"], ['SIGINT', "npm's process group"],
  ] as const) {
    it(`${signal} to ${target}`, async () => {
      const stack = await startStack();
      const runId = await runningTask(4000);
      const since = Date.now();
      process.kill(pidOf(stack, target), signal);
      await expectOrderlyStop(stack, runId, since, 'observed', signal);
    }, 300_000);
  }

  it("SIGINT to the supervisor's process group: the embedded database, in a group of its own, is not signalled with it (lib/infra/embedded-postgres.ts)", async () => {
    const stack = await startStack();
    const pgidOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[2]);
    expect(pgidOf(stack.postmaster)).toBe(stack.postmaster);
    const runId = await runningTask(4000);
    const since = Date.now();
    process.kill(-stack.supervisor, 'SIGINT');
    await expectOrderlyStop(stack, runId, since, 'observed', 'SIGINT');
  }, 300_000);

  it('TICKFLOW_HOST=127.0.0.1: the console answers on loopback only, and the stack still stops in order', async () => {
    const stack = await startStack({ TICKFLOW_HOST: '127.0.0.1' });
    expect(stack.output()).toContain(`console: http://127.0.0.1:${port}`);
    // another address of this machine, where a console on every interface would answer
    const other = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    if (other) {
      const reached = await fetch(`http://${other}:${port}/api/v1/health`).then(() => true, () => false);
      expect(reached, `the console answered on ${other}`).toBe(false);
    }
    const runId = await runningTask(4000);
    const since = Date.now();
    process.kill(pidOf(stack, 'npm'), 'SIGTERM');
    await expectOrderlyStop(stack, runId, since, 'observed');
  }, 300_000);

  it('npm dies (SIGKILL): the launcher notices its parent is gone and stops the stack', async () => {
    const stack = await startStack();
    const runId = await runningTask(4000);
    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGKILL');
    await expectOrderlyStop(stack, runId, since, 'unobservable');
  }, 300_000);

  it('the launcher dies (SIGKILL): the supervisor notices its channel close and stops the stack', async () => {
    const stack = await startStack();
    const runId = await runningTask(4000);
    const since = Date.now();
    process.kill(stack.launcher, 'SIGKILL');
    await expectOrderlyStop(stack, runId, since, 'unobservable');
  }, 300_000);

  it('a second signal stops at once: no drain, the database still stopped, exit 130', async () => {
    const stack = await startStack();
    await runningTask(60_000, true);
    process.kill(stack.npm.pid!, 'SIGTERM');
    await waitFor(() => /worker draining/.test(stack.output()), 10_000, 'the worker draining', 200);
    // a person's second Ctrl-C, not the same delivery (lib/infra/stop-requests.ts)
    await new Promise((r) => setTimeout(r, 1000));
    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGTERM');
    const tookMs = await allGone(stack, since, 20_000);
    expect(tookMs).toBeLessThan(10_000); // not the 15 s grace, nor the 60 s task
    expect(await stack.npmExited).toEqual({ code: 130, signal: null });
    expect(stack.output()).toMatch(/stopping now/);
    expect(stopSequence(stack.output()).slice(-2)).toEqual(['[tickflow] embedded database stopped', '[tickflow] stopped']);
  }, 300_000);

  it("SIGTERM to the stack's worker alone: it stops cleanly and is not restarted; the console keeps serving; the stack still stops in order, exit 0", async () => {
    const stack = await startStack();
    process.kill(stack.worker, 'SIGTERM');
    await waitFor(() => stack.output().includes('[tickflow] worker stopped cleanly (exit 0: it was asked to stop directly) and is not restarted'), 60_000, 'the supervisor leaving the worker stopped', 200);
    await new Promise((r) => setTimeout(r, 2_500)); // past the first restart's 1 s delay
    expect(stack.output()).not.toMatch(/worker exited .*restarting it/);
    expect(alive(stack.worker)).toBe(false);
    expect((await api('GET', '/jobs')).status).toBe(200);
    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGTERM');
    await allGone(stack, since, 60_000);
    expect(await stack.npmExited).toEqual({ code: 0, signal: null });
    expect(stopSequence(stack.output()).slice(-3)).toEqual(['[tickflow] console stopped', '[tickflow] embedded database stopped', '[tickflow] stopped']);
  }, 300_000);
});

describe('a database restart under a running stack (docs/operations.md "Database restarts and failover")', () => {
  it('the console answers 503 with a clear message (API JSON and pages) while it is away; no work is lost or doubled', async () => {
    const externalDir = path.join(ROOT, '.tickflow', `restart-test-${process.pid}`);
    const externalPort = await freePort();
    const start = () => startEmbeddedPostgres({ dataDir: externalDir, port: externalPort, fast: true, log: () => undefined });
    let server = await start();
    try {
      await ensureDatabase(server.adminUrl, 'tickflow');
      const url = withDatabase(server.adminUrl, 'tickflow');
      await migrate(url);
      const stack = await startStack({ DATABASE_URL: url, TICKFLOW_POLL_MS: '500' });

      const runIds: string[] = [];
      for (let i = 0; i < 20; i++) {
        const job = await api('POST', '/jobs', {
          key: `restart.${i}`, name: 'restart test', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 400 }, policy: { timeoutSeconds: 60, maxRetries: 3 },
        });
        expect(job.status, JSON.stringify(job.json)).toBe(201);
        runIds.push((await api('POST', `/jobs/${job.json.id}/trigger`, {})).json.id);
      }
      const succeeded = async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        try {
          const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM runs WHERE id = ANY($1::uuid[]) AND status = 'success'`, [runIds]);
          return rows[0]!.n;
        } finally {
          await c.end();
        }
      };
      await waitFor(async () => (await succeeded()) >= 2, 60_000, 'a few runs done', 200);

      // Frozen rather than gone (SIGSTOP, as a server that dropped off the network: connections hang instead of
      // failing): the health check and the API still answer, 503, within the probe's 3 s, not after the outage.
      const postmaster = Number(readFileSync(path.join(externalDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      const frozen = [postmaster, ...[...processTable()].filter(([, p]) => p.ppid === postmaster).map(([pid]) => pid)];
      const signal = (sig: NodeJS.Signals) => {
        for (const pid of frozen) try { process.kill(pid, sig); } catch { /* a backend that ended meanwhile */ }
      };
      signal('SIGSTOP');
      try {
        for (const route of ['/api/v1/health', '/api/v1/jobs']) {
          const asked = Date.now();
          const res = await fetch(`http://127.0.0.1:${port}${route}`, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(15_000) });
          expect({ route, status: res.status }).toEqual({ route, status: 503 });
          expect(Date.now() - asked).toBeLessThan(8_000);
        }
      } finally {
        signal('SIGCONT');
      }
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status === 200, 15_000, 'health back after the thaw', 200);

      await server.stop();
      const api503 = await api('GET', '/jobs');
      expect(api503.status).toBe(503);
      expect(api503.json.error).toMatchObject({ code: 'database_unavailable', message: expect.stringMatching(/database is not reachable/) });
      expect((await fetch(`http://127.0.0.1:${port}/api/v1/health`)).status).toBe(503);
      // a page (the probe's "reachable" answer is reused up to 250 ms)
      const page = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/jobs`, { redirect: 'manual' });
        return res.status === 503 ? res : null;
      }, 10_000, 'the 503 page', 200);
      expect(page.headers.get('retry-after')).toBe('5');
      expect(await page.text()).toMatch(/database is not reachable right now/);

      server = await start();
      const restartedAt = Date.now();
      await waitFor(async () => (await succeeded()) === runIds.length, 60_000, 'every run to finish after the restart', 200);
      const resumeMs = Date.now() - restartedAt;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        // nothing lost, nothing doubled: each run's one task succeeded exactly once
        const { rows } = await c.query<{ successes: number }>(
          `SELECT (SELECT count(*)::int FROM task_logs l WHERE l.task_id = t.id AND l.to_status = 'success') AS successes
           FROM tasks t WHERE t.run_id = ANY($1::uuid[])`,
          [runIds],
        );
        expect(rows).toHaveLength(runIds.length);
        for (const r of rows) expect(r.successes).toBe(1);
      } finally {
        await c.end();
      }
      expect(resumeMs).toBeLessThan(60_000);
      const pageBack = await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/jobs`, { redirect: 'manual' });
        return res.status !== 503 ? res : null;
      }, 10_000, 'pages back', 200);
      expect([200, 307]).toContain(pageBack.status);

      const since = Date.now();
      process.kill(stack.npm.pid!, 'SIGTERM');
      await allGone(stack, since, GRACE_MS + 30_000);
      expect(await stack.npmExited).toEqual({ code: 0, signal: null });
    } finally {
      await server.stop();
      rmSync(externalDir, { recursive: true, force: true });
      rmSync(`${externalDir}.password`, { force: true });
    }
  }, 300_000);
});

describe('the console dies under a running stack', () => {
  it('kill -9 of the console: the supervisor restarts it, the worker keeps running meanwhile, and the stack still stops in order, exit 0', async () => {
    const stack = await startStack();
    const killed = stack.console;
    process.kill(killed, 'SIGKILL');
    await waitFor(() => stack.output().includes('[tickflow] console exited (killed by SIGKILL); restarting it in 1 s\n'), 5_000, 'the supervisor reporting the kill', 50);
    await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.status, () => 0)) === 200, 90_000, `GET /api/v1/health 200 again\n${stack.output()}`, 200);
    expect(alive(stack.worker)).toBe(true);
    const restarted = [...processTable()].find(([, p]) => p.ppid === stack.supervisor && /next/.test(p.cmdline))?.[0];
    expect(restarted).toBeDefined();
    expect(restarted).not.toBe(killed);
    stack.console = restarted!;
    stack.known.set(stack.console, recordProcess(stack.console));
    expect(stack.output()).not.toMatch(/stopping \(the console exited\)/);

    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGTERM');
    await allGone(stack, since, 60_000);
    expect(await stack.npmExited).toEqual({ code: 0, signal: null });
    expect(stopSequence(stack.output())).toEqual(['[tickflow] worker stopped', '[tickflow] console stopped', '[tickflow] embedded database stopped', '[tickflow] stopped']);
  }, 300_000);
});

describe('the embedded PostgreSQL dies under a running stack (docs/operations.md "Database restarts and failover")', () => {
  const pgdata = () => path.join(dataDir, 'pgdata');
  /** The postmaster's pid, from its data directory. */
  const postmasterPid = () => Number(readFileSync(path.join(pgdata(), 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** PostgreSQL servers still running on this stack's data directory (the postmaster's command line names it). */
  const serversOnDataDir = () => [...processTable()].filter(([, p]) => p.cmdline.includes(`-D ${pgdata()}`)).map(([pid]) => pid);
  const healthStatus = () => fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.status, () => 0);

  /**
   * The stack gave up on its database: one line naming `cause`, the worker and the console
   * stopped in order (the dead database is not named), exit 1, no process left.
   */
  async function expectGaveUp(stack: Stack, cause: string, since: number) {
    await allGone(stack, since, GRACE_MS + 30_000);
    expect(await stack.npmExited).toEqual({ code: 1, signal: null });
    const out = stack.output();
    expect(out).toContain(`[tickflow] giving up on the embedded database: ${cause}; stopping Tickflow (exit 1)\n`);
    expect(out).toContain('[tickflow] stopping (the embedded database is down): the worker finishes its running tasks first, then the console stops…');
    expect(stopSequence(out)).toEqual(['[tickflow] worker stopped', '[tickflow] console stopped', '[tickflow] stopped']);
    expect(serversOnDataDir()).toEqual([]);
  }

  it('kill -9 of the postmaster: the supervisor says so at once, restarts it in place, and the stack serves and runs jobs again', async () => {
    const stack = await startStack();
    const killed = stack.postmaster;
    process.kill(killed, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(() => stack.output().includes('[tickflow] embedded database exited (killed by SIGKILL); restarting it in 1 s\n'), 2_000, 'the supervisor reporting the kill', 50);
    await waitFor(async () => (await healthStatus()) === 200, 15_000, `GET /api/v1/health 200 again\n${stack.output()}`, 100);
    expect(Date.now() - killedAt).toBeLessThan(8_000);
    expect(stack.output()).toMatch(/\[tickflow\] embedded database restarted \(down for \d+\.\d s\)\n/);
    // the same data directory and port, a new postmaster
    stack.postmaster = postmasterPid();
    stack.known.set(stack.postmaster, recordProcess(stack.postmaster));
    expect(stack.postmaster).not.toBe(killed);
    expect(serversOnDataDir()).toEqual([stack.postmaster]);

    const runId = await runningTask(1000);
    const run = await waitFor(async () => {
      const json = (await api('GET', `/runs/${runId}`)).json;
      return ['success', 'failed', 'cancelled', 'dead'].includes(json?.status) ? json : null;
    }, 30_000, 'the run triggered after the restart to finish', 200);
    expect(run.status).toBe('success');

    // the restarted server is the one the stop ends, last, with a fast shutdown
    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGTERM');
    await allGone(stack, since, GRACE_MS + 30_000);
    expect(await stack.npmExited).toEqual({ code: 0, signal: null });
    expect(stopSequence(stack.output())).toEqual(['[tickflow] worker stopped', '[tickflow] console stopped', '[tickflow] embedded database stopped', '[tickflow] stopped']);
    expect(stack.output()).toMatch(/\[tickflow\] embedded database stopped \(fast shutdown, exit 0\)/);
    expect(serversOnDataDir()).toEqual([]);
  }, 300_000);

  it('its data directory gone: the supervisor gives up, stops the worker and the console in order and exits 1', async () => {
    const stack = await startStack();
    const moved = `${pgdata()}.moved`;
    renameSync(pgdata(), moved);
    try {
      process.kill(stack.postmaster, 'SIGKILL');
      await expectGaveUp(stack, `its data directory ${pgdata()} is gone (no PG_VERSION in it)`, Date.now());
      // a restart must not initialise an empty cluster in its place
      expect(existsSync(pgdata())).toBe(false);
    } finally {
      rmSync(pgdata(), { recursive: true, force: true });
      renameSync(moved, pgdata());
    }
  }, 300_000);

  it('another program on its port: the supervisor gives up the same way', async () => {
    const stack = await startStack();
    process.kill(stack.postmaster, 'SIGKILL');
    const squatter = net.createServer((socket) => socket.destroy());
    try {
      // the supervisor restarts after 1 s: the port is taken long before
      await waitFor(() => new Promise<boolean>((resolve) => {
        squatter.once('error', () => resolve(false));
        squatter.listen(pgPort, '127.0.0.1', () => resolve(true));
      }), 500, 'the port of the killed server', 20);
      await expectGaveUp(stack, `another program took its port ${pgPort}`, Date.now());
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 300_000);
});

describe('a second npm start of the same checkout (lib/infra/supervisor-file.ts)', () => {
  it('refuses with exit 1, naming the running one, and leaves its database and console as they were', async () => {
    const stack = await startStack();
    const otherPort = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(otherPort), TICKFLOW_PG_PORT: String(await freePort()), TICKFLOW_DATA_DIR: dataDir, TICKFLOW_SEED: '0', NEXT_TELEMETRY_DISABLED: '1' };
    delete env.DATABASE_URL;
    delete env.VITEST;
    const second = spawn('npm', ['run', '--silent', SCRIPT], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    second.stdout!.on('data', (d) => { out += d; });
    second.stderr!.on('data', (d) => { out += d; });
    const exited = await new Promise<number | null>((resolve) => second.once('exit', (code) => resolve(code)));
    expect({ exited, out }).toEqual({ exited: 1, out: expect.stringContaining(`another npm start of this checkout (pid ${stack.supervisor}) is running`) });
    expect(out).not.toContain('stopping it first');
    expect(alive(stack.postmaster)).toBe(true);
    expect(Number(readFileSync(path.join(dataDir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0])).toBe(stack.postmaster);
    expect((await api('GET', '/jobs')).status).toBe(200);
    expect(stack.output()).not.toMatch(/embedded database exited/);

    const since = Date.now();
    process.kill(stack.npm.pid!, 'SIGTERM');
    await allGone(stack, since, GRACE_MS + 30_000);
    expect(await stack.npmExited).toEqual({ code: 0, signal: null });
    // the record goes with its supervisor: the next start of the checkout is not refused
    expect(existsSync(path.join(dataDir, 'supervisor.pid'))).toBe(false);
  }, 300_000);
});

describe('npm run worker', () => {
  for (const [way, send] of [
    ["SIGINT to its process group (Ctrl-C: npm forwards it, the worker gets it twice)", (pid: number) => process.kill(-pid, 'SIGINT')],
    ['SIGTERM to npm (docker stop, systemd)', (pid: number) => process.kill(pid, 'SIGTERM')],
  ] as const) {
    it(`${way}: drains the running task and exits 0`, async () => {
      const t = await createTestDatabase();
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'info', TICKFLOW_SHUTDOWN_GRACE_MS: String(GRACE_MS), TICKFLOW_POLL_MS: '200' };
        delete env.VITEST;
        const npm = spawn('npm', ['run', '--silent', 'worker'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        npm.stdout!.on('data', (d) => { out += d; });
        npm.stderr!.on('data', (d) => { out += d; });
        const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
        try {
          await waitFor(() => /"msg":"worker ready"/.test(out), 60_000, 'worker ready', 200);
          const jobId = await insertJob(t.db, { scheduleKind: 'manual', timeoutSeconds: 60, steps: [{ handler: 'builtin.sleep', payload: { ms: 3000 } }] });
          const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
          await waitFor(async () => (await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).status === 'running', 20_000, 'the task running', 200);
          send(npm.pid!);
          expect(await exited).toEqual({ code: 0, signal: null });
          expect(out).toMatch(/"drained":true/);
          expect(out).not.toMatch(/second signal/);
          expect((await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).status).toBe('success');
        } finally {
          if (npm.exitCode === null) { try { process.kill(-npm.pid!, 'SIGKILL'); } catch { /* gone */ } }
        }
      } finally {
        await t.close();
      }
    }, 120_000);
  }
});

describe('npm start with TICKFLOW_START_WORKER=0 (the console container of docs/operations.md)', () => {
  it('runs the console alone on an external database and stops it in order', async () => {
    const t = await createTestDatabase();
    try {
      const env: NodeJS.ProcessEnv = {
        ...process.env, DATABASE_URL: t.url, PORT: String(port), TICKFLOW_START_WORKER: '0', TICKFLOW_SEED: '0',
        TICKFLOW_DATA_DIR: dataDir, TICKFLOW_ADMIN_PASSWORD: 'service-test-password', LOG_LEVEL: 'info', NEXT_TELEMETRY_DISABLED: '1',
      };
      delete env.VITEST;
      const npm = spawn('npm', ['run', '--silent', SCRIPT], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      npm.stdout!.on('data', (d) => { out += d; });
      npm.stderr!.on('data', (d) => { out += d; });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => npm.once('exit', (code, signal) => resolve({ code, signal })));
      try {
        const health = await waitFor(async () => fetch(`http://127.0.0.1:${port}/api/v1/health`).then((r) => r.json()).catch(() => null), 180_000, 'the console', 200);
        expect(health).toMatchObject({ status: 'ok', workers: 0 });
        expect(out).toMatch(/Ctrl-C stops the console\)/);
        const launcher = [...processTable()].find(([, p]) => p.ppid === npm.pid && /scripts\/start\.ts/.test(p.cmdline))?.[0];
        const supervisor = launcher && [...processTable()].find(([, p]) => p.ppid === launcher && /scripts\/start\.ts/.test(p.cmdline))?.[0];
        expect(supervisor).toBeTruthy();
        expect([...processTable()].filter(([, p]) => p.ppid === supervisor && COMPILED_WORKER.test(p.cmdline))).toEqual([]);
        process.kill(npm.pid!, 'SIGTERM');
        expect(await exited).toEqual({ code: 0, signal: null });
        expect(stopSequence(out)).toEqual(['[tickflow] console stopped', '[tickflow] stopped']);
        // no start-up or stop line speaks of a worker that does not run, but the one saying so
        const ownLines = out.split('\n').filter((l) => l.startsWith('[tickflow]'));
        expect(ownLines.filter((l) => /worker/i.test(l))).toEqual(['[tickflow] no worker here (TICKFLOW_START_WORKER=0): jobs run on the workers started with `npm run worker`']);
        expect(ownLines).toContain('[tickflow] stopping (launcher: SIGTERM): the console…');
        expect(await portFree(port)).toBe(true);
      } finally {
        if (npm.exitCode === null) { try { process.kill(-npm.pid!, 'SIGKILL'); } catch { /* gone */ } }
      }
    } finally {
      await t.close();
    }
  }, 240_000);
});

/** Runs `npm run <script>` to its end (at most 60 s); its exit code and output. */
async function runToEnd(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  const child = spawn('npm', ['run', '--silent', script], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const timer = setTimeout(() => { try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, 60_000);
  const [code] = (await new Promise<[number | null]>((resolve) => child.once('exit', (c) => resolve([c]))));
  clearTimeout(timer);
  return { code, out };
}

describe('a DATABASE_URL that cannot be used (README "Configuration")', () => {
  const envFor = (url: string): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATABASE_URL: url, PORT: String(port), TICKFLOW_DATA_DIR: path.join(dataDir, 'unused'), LOG_LEVEL: 'info', NEXT_TELEMETRY_DISABLED: '1',
    };
    delete env.VITEST;
    return env;
  };

  it('a database that does not exist: npm start, npm run migrate and npm run worker say the same — which database on which server, how to create it — exit 1 and create nothing', async () => {
    const name = `${inject('pgPrefix')}_missing`;
    const url = withDatabase(inject('pgAdminUrl'), name);
    const { port: serverPort, password } = new URL(url);
    const message = `database "${name}" does not exist on the PostgreSQL server at 127.0.0.1:${serverPort} (DATABASE_URL). ` +
      'Tickflow does not create its database on a server it does not run: create it, as a role allowed to create databases, ' +
      `with \`createdb -h 127.0.0.1 -p ${serverPort} -U postgres ${name}\` or the SQL \`CREATE DATABASE "${name}" OWNER "postgres";\`, then try again.`;
    const expected: Record<string, string> = {
      [SCRIPT]: `[tickflow] start-up failed: ${message}`,
      migrate: `[tickflow] migrations not applied: ${message}`,
      worker: `tickflow worker: ${message}`,
    };
    for (const [script, line] of Object.entries(expected)) {
      const { code, out } = await runToEnd(script, envFor(url));
      expect({ script, code }).toEqual({ script, code: 1 });
      expect(out.split('\n'), out).toContain(line);
      expect(out).not.toContain(decodeURIComponent(password));
    }
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    try {
      expect((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount).toBe(0);
    } finally {
      await admin.end();
    }
    expect(existsSync(path.join(dataDir, 'unused'))).toBe(false);
  }, 180_000);

  it('npm start on a wrong password and on a closed port: a message of its own each, exit 1', async () => {
    const wrong = new URL(withDatabase(inject('pgAdminUrl'), 'postgres'));
    wrong.password = 'not-the-password';
    const refused = await runToEnd(SCRIPT, envFor(wrong.toString()));
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/\[tickflow\] start-up failed: PostgreSQL at 127\.0\.0\.1:\d+ refused user "postgres" for database "postgres": password authentication failed for user "postgres"\. Check the user name and password in DATABASE_URL/);
    expect(refused.out).not.toContain('not-the-password');
    const closed = await freePort();
    const away = await runToEnd(SCRIPT, envFor(`postgresql://postgres:secret@127.0.0.1:${closed}/tickflow`));
    expect(away.code).toBe(1);
    expect(away.out).toContain(`[tickflow] start-up failed: cannot reach PostgreSQL at 127.0.0.1:${closed}: connection refused (nothing listens on that port).`);
    expect(away.out).not.toContain('secret');
  }, 180_000);
});
