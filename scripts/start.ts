/**
 * `npm start`: one command that runs Tickflow on this machine.
 *
 * 1. Uses DATABASE_URL, or starts the embedded PostgreSQL under .tickflow/.
 * 2. Applies migrations.
 * 3. Builds the console when there is no build or the sources changed since, and the
 *    compiled worker likewise (lib/infra/worker-build.ts; also in dev mode).
 * 4. Makes sure an admin exists (TICKFLOW_ADMIN_EMAIL/PASSWORD, else a random
 *    password printed once) and, on a database that never had a job, seeds demo jobs:
 *    after the builds, so that their first slots are not missed while a build runs.
 * 5. Runs the console (`next start`) and one worker (none with
 *    TICKFLOW_START_WORKER=0), with prefixed logs; any stop signal stops the
 *    worker (drain), the console, then the embedded PostgreSQL. A worker or an
 *    embedded PostgreSQL that exits unexpectedly is restarted
 *    (lib/infra/restart-schedule.ts); an embedded PostgreSQL that cannot be kept
 *    up stops the stack with exit 1.
 *
 * `npm run dev` does the same with `next dev` instead of a production build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import net from 'node:net';
import { constants as osConstants } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import readline from 'node:readline';
import { consoleBuildIsStale } from '../lib/infra/console-build.ts';
import { resolveDatabase, type ResolvedDatabase } from '../lib/infra/database-url.ts';
import { EmbeddedRestartError, type EmbeddedServer } from '../lib/infra/embedded-postgres.ts';
import { CONSOLE_RESTARTS, createRestartSchedule, EMBEDDED_DATABASE_RESTARTS, SUPERVISED_RESTARTS } from '../lib/infra/restart-schedule.ts';
import { migrate, migrationSummary } from '../lib/infra/migrate.ts';
import { lockDownDataDir } from '../lib/infra/private-files.ts';
import { otherLiveSupervisor, recordSupervisor } from '../lib/infra/supervisor-file.ts';
import { hasExited, signalProcessGroup } from '../lib/infra/process-group.ts';
import { consoleEnv, workerEnv } from '../lib/infra/service-env.ts';
import { createStopRequests, type StopMode } from '../lib/infra/stop-requests.ts';
import { ensureWorkerBuild, workerNodeArgs } from '../lib/infra/worker-build.ts';
import { ctrlCStops, stopBeginsLine, type RunningParts } from '../lib/infra/stack-lines.ts';
import { consoleHealthAllowEntries, consoleListenFromEnv, consoleLocalOrigin, nextListenArgs, type ConsoleListen } from '../lib/infra/console-listen.ts';
import { dbQueryTimeoutFromEnv } from '../lib/db-timeouts.ts';
import { adminSettings } from '../lib/auth/bootstrap.ts';
import { alarmSettings } from '../lib/alarms/config.ts';
import { checkOutboundAllowSetting } from '../lib/net/outbound.ts';

const dev = process.argv.includes('--dev');
/** TICKFLOW_START_WORKER=0: the console alone (workers run elsewhere, e.g. `npm run worker` in their own containers). */
const startsWorker = !/^(0|false|off|no)$/i.test(process.env.TICKFLOW_START_WORKER ?? '');

/*
 * Process layout (docs/operations.md "Stopping"). `npm start` execs this script,
 * the launcher. A terminal's Ctrl-C sends SIGINT to every process of the
 * foreground process group: the console, the worker and PostgreSQL would each
 * get it directly, and PostgreSQL would cut connections while the worker
 * drains. So the launcher re-runs this script as a supervisor in a new process
 * group (and each child in a group of its own): only the launcher (and npm, which
 * forwards the signal to it) get the terminal's signals, and the launcher passes
 * ONE stop request to the supervisor over IPC. The supervisor stops the worker
 * (drain), then the console, then the database, and exits 0; the launcher exits
 * with its code. Both treat any signal within DUPLICATE_SIGNAL_MS of the first
 * as the same delivery, and a later one as "stop now". If npm dies (even by
 * SIGKILL) the launcher sees its parent change and stops the stack the same
 * way; if the launcher dies, the supervisor sees its IPC channel close.
 */
type StopMessage = { type: 'tickflow-stop'; mode: StopMode; reason: string };
const isStopMessage = (m: unknown): m is StopMessage =>
  typeof m === 'object' && m !== null && (m as StopMessage).type === 'tickflow-stop' && ['drain', 'now'].includes((m as StopMessage).mode);

if (process.env.TICKFLOW_SUPERVISOR !== '1') {
  const { fork } = await import('node:child_process');
  const supervisor = fork(fileURLToPath(import.meta.url), process.argv.slice(2), {
    detached: true,
    env: { ...process.env, TICKFLOW_SUPERVISOR: '1' },
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const request = createStopRequests({
    onStop: (mode, source) => {
      const message: StopMessage = { type: 'tickflow-stop', mode, reason: `launcher: ${source}` };
      // The channel is gone only when the supervisor is; a signal is then all that is left.
      if (supervisor.connected) supervisor.send(message, (err) => { if (err) supervisor.kill(mode === 'now' ? 'SIGKILL' : 'SIGTERM'); });
      else supervisor.kill(mode === 'now' ? 'SIGKILL' : 'SIGTERM');
    },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => request(signal));
  // npm (or whatever started us) died: nobody will forward a signal any more, so stop the stack in order now.
  const parentPid = process.ppid;
  const watchParent = setInterval(() => {
    if (process.ppid === parentPid) return;
    clearInterval(watchParent);
    request('its parent exited');
  }, 250).unref();
  supervisor.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  await new Promise(() => undefined);
}
let listen: ConsoleListen;
try {
  listen = consoleListenFromEnv(process.env);
  // checked here so a bad value stops the start with its reason, not the console's first page
  dbQueryTimeoutFromEnv(process.env);
  // the alarm settings the console and the worker read (lib/alarms/config.ts), one check for both
  alarmSettings(process.env);
  checkOutboundAllowSetting(process.env);
  // and before a database is created or migrated: the first admin is made only at the end of the start
  adminSettings(process.env);
} catch (error) {
  console.error(`[tickflow] ${(error as Error).message}`);
  process.exit(1);
}
const port = listen.port;
/** The console from this machine: the demo health check's target and the start-up line. */
const consoleOrigin = consoleLocalOrigin(listen);
const root = process.cwd();
const say = (line: string) => console.log(`[tickflow] ${line}`);

function prefixed(child: ChildProcess, tag: string) {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${tag}] ${line}`));
  }
}

let database: ResolvedDatabase | undefined;
let consoleProc: ChildProcess | undefined;
let workerProc: ChildProcess | undefined;
let buildProc: ChildProcess | undefined;
let stopMode: StopMode | undefined;
let exitCode = 0;
let shuttingDown: Promise<never> | undefined;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const request = createStopRequests({ onStop: (mode, source) => stop(mode, 0, source) });
// Installed before anything else, so a signal during start-up stops cleanly too.
const ownListeners = new Map(SIGNALS.map((signal) => [signal, () => request(signal)] as const));
for (const [signal, listener] of ownListeners) process.on(signal, listener);
process.on('message', (message) => { if (isStopMessage(message)) request(String(message.reason).slice(0, 80), message.mode); });
process.on('disconnect', () => request('the launcher exited'));

/**
 * The process group of `child` (each child leads its own) gets `signal`; leftovers such as `next dev`'s server or a
 * shell task included, and never the group of a process that took the number of a child reaped long ago
 * (lib/infra/process-group.ts).
 */
function killGroup(child: ChildProcess | undefined, signal: NodeJS.Signals): void {
  if (child) signalProcessGroup(child, signal);
}

/** What runs right now: every start-up and stop line names these and nothing else (lib/infra/stack-lines.ts). */
function running(): RunningParts {
  const live = (child: ChildProcess | undefined) => Boolean(child && !hasExited(child));
  return {
    build: live(buildProc),
    worker: live(workerProc),
    console: live(consoleProc),
    // while it starts, `database` is not set yet: it is embedded exactly when DATABASE_URL is unset
    embeddedDatabase: database ? Boolean(database.server?.running()) : !process.env.DATABASE_URL,
  };
}

/** `signal` (SIGTERM unless given) to `child`, SIGKILL to its group after `graceMs` (at once when stopping now); resolves when it has exited. */
function stopChild(child: ChildProcess, graceMs: number, signal: 'SIGTERM' | 'SIGINT' = 'SIGTERM'): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const done = () => { clearTimeout(timer); killGroup(child, 'SIGKILL'); resolve(); };
    if (hasExited(child)) return done();
    child.once('exit', done);
    if (stopMode === 'now') return killGroup(child, 'SIGKILL');
    timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
    child.kill(signal);
  });
}

/**
 * One stop for the whole stack, whatever asked for it. 'drain': the worker
 * first (SIGTERM, or the SIGINT that asked for the stop: it finishes running attempts for up to
 * TICKFLOW_SHUTDOWN_GRACE_MS), then the console, then the embedded database, so
 * the worker can still record its results; exit `code` (0 for a signal).
 * 'now' (a second signal, even in the middle of a drain): SIGKILL to the
 * children's process groups — the worker first gets a second SIGTERM, its own "stop now" (it
 * hands back the tasks it has not started, at most 1 s), and SIGKILL 2 s later — the database
 * still stopped last; exit 130.
 */
function stop(mode: StopMode, code: number, reason: string): void {
  if (mode === 'now') {
    if (stopMode === 'now') return;
    stopMode = 'now';
    for (const child of [buildProc, consoleProc]) killGroup(child, 'SIGKILL');
    // The worker's own second signal: it hands back the tasks it claimed and has not started
    // (at most 1 s, worker/index.ts), then exits; SIGKILL if it has not after 2 s.
    if (workerProc && !hasExited(workerProc)) {
      workerProc.kill('SIGTERM');
      const proc = workerProc;
      setTimeout(() => killGroup(proc, 'SIGKILL'), 2000).unref();
    }
  } else {
    stopMode ??= 'drain';
  }
  if (shuttingDown) {
    if (mode === 'now') say(stopBeginsLine('now', reason, running()));
    return;
  }
  exitCode = code;
  shuttingDown = shutdown(reason);
}

/**
 * How a child ended, for the stop log: killed by a signal, or its exit code — and for a code of
 * 128 + n the signal n it stopped on (Next's server exits 143 when it stops on the SIGTERM this
 * launcher sends it: a clean stop, not an error).
 */
function howItEnded(child: ChildProcess): string {
  if (child.signalCode) return `killed by ${child.signalCode}`;
  const code = child.exitCode;
  const signal = code !== null && code > 128 ? Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0] : undefined;
  return signal ? `stopped on ${signal} as asked, exit ${code}` : `exit ${code}`;
}

async function shutdown(reason: string): Promise<never> {
  // A part that ended before the stop (a crashed console, a worker waiting for its restart) said so then.
  const parts = running();
  say(stopBeginsLine(stopMode ?? 'drain', reason, parts));
  const drainMs = Number(process.env.TICKFLOW_SHUTDOWN_GRACE_MS ?? 30_000) + 5_000;
  if (buildProc) {
    await stopChild(buildProc, 5_000);
    if (parts.build) say(`console build stopped (${howItEnded(buildProc)})`);
  }
  if (workerProc) {
    // The worker records the signal it stopped on (the Workers page shows it): an operator's Ctrl-C
    // reaches it as the SIGINT it was, anything else as SIGTERM. It drains the same on both.
    await stopChild(workerProc, drainMs, /\bSIGINT\b/.test(reason) ? 'SIGINT' : 'SIGTERM');
    if (parts.worker) say(`worker stopped (${howItEnded(workerProc)})`);
  }
  if (consoleProc) {
    await stopChild(consoleProc, 10_000);
    if (parts.console) say(`console stopped (${howItEnded(consoleProc)})`);
  }
  // A stop during start-up waits for the embedded server to finish starting, then stops it.
  const db = database ?? (await databaseStarting);
  if (db?.embedded) {
    const how = await db.stop();
    // one that exited before the stop, and was not restarted, said so then
    if (parts.embeddedDatabase) say(`embedded database stopped (${how})`);
  }
  say('stopped');
  process.exit(stopMode === 'now' ? 130 : exitCode);
}

/** Start-up steps call this between steps: once a stop began, start-up goes no further. */
async function unlessStopping(): Promise<void> {
  if (shuttingDown) await shuttingDown;
}

/**
 * Watches the embedded PostgreSQL from its start to the stack's stop: the stack owns it, and
 * nothing else would start it again. An exit that no stop asked for is logged at once and
 * restarted in place (PostgreSQL recovers from its write-ahead log on start) by the worker's
 * rule (lib/infra/restart-schedule.ts). When the rule gives up, or no restart can help (its data
 * directory is gone, another program took its port), the stack stops in order and exits 1, so
 * that a service manager (Restart=on-failure) starts it again whole.
 */
function superviseEmbeddedDatabase(server: EmbeddedServer): void {
  const restarts = createRestartSchedule(EMBEDDED_DATABASE_RESTARTS);
  let startedAt = Date.now();
  let downSince: number | undefined;
  const giveUp = (why: string) => {
    console.error(`[tickflow] giving up on the embedded database: ${why}; stopping Tickflow (exit 1)`);
    stop('drain', 1, 'the embedded database is down');
  };
  /** `what` follows "embedded database": `exited (killed by SIGKILL)`, `exited while starting (…)`. */
  const ended = (what: string) => {
    if (shuttingDown) return;
    downSince ??= Date.now();
    const next = restarts.afterEnd(Date.now() - startedAt);
    if (next.giveUp) return giveUp(`it ${what}, ${next.giveUp}`);
    console.error(`[tickflow] embedded database ${what}; restarting it in ${next.delayMs / 1000} s`);
    setTimeout(() => {
      if (shuttingDown) return;
      startedAt = Date.now();
      server.restart().then(
        () => {
          if (!shuttingDown) say(`embedded database restarted (down for ${((Date.now() - downSince!) / 1000).toFixed(1)} s)`);
          downSince = undefined;
        },
        (error: unknown) => {
          if (shuttingDown) return;
          if (error instanceof EmbeddedRestartError && error.retry) return ended(error.message);
          giveUp(error instanceof Error ? error.message : String(error));
        },
      );
    }, next.delayMs);
  };
  server.onUnexpectedExit((how) => ended(`exited (${how})`));
}

if (!process.env.DATABASE_URL) {
  // One stack per data directory: a second start would stop the first one's database as a leftover.
  const dataRoot = path.resolve(process.env.TICKFLOW_DATA_DIR ?? path.join(root, '.tickflow'));
  const other = otherLiveSupervisor(dataRoot);
  if (other !== null) {
    console.error(
      `[tickflow] another npm start of this checkout (pid ${other}) is running with the embedded database in ${dataRoot}; ` +
        `stop it first (Ctrl-C in its terminal, or kill -TERM ${other}), or give this one its own TICKFLOW_DATA_DIR or a DATABASE_URL`,
    );
    process.exit(1);
  }
  recordSupervisor(dataRoot);
}
const listenersBefore = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
const databaseStarting = resolveDatabase(say).catch((error: Error) => {
  console.error(`[tickflow] ${error.message}`);
  process.exit(1);
});
database = await databaseStarting;
if (database.server) superviseEmbeddedDatabase(database.server);
// embedded-postgres installs signal hooks that stop PostgreSQL on the first
// signal, which would cut the worker's connections while it drains: this
// supervisor stops the database itself, last.
for (const signal of SIGNALS) {
  for (const listener of process.listeners(signal)) if (!listenersBefore.get(signal)!.has(listener)) process.removeListener(signal, listener);
}
await unlessStopping();
// TICKFLOW_SUPERVISOR_PID tells scripts/exit-with-parent.mjs which process is its parent.
// Next.js reports usage to Vercel unless told not to: a self-hosted scheduler sends nothing out
// by itself (an operator may still set NEXT_TELEMETRY_DISABLED=0).
const env = { NEXT_TELEMETRY_DISABLED: '1', ...process.env, DATABASE_URL: database.url, TICKFLOW_SUPERVISOR_PID: String(process.pid) };

/** A start-up step failed before the console ran: says why, stops the embedded database, exits 1 (unless a stop is under way). */
async function startupFailed(error: unknown, db: ResolvedDatabase): Promise<never> {
  await unlessStopping();
  console.error(`[tickflow] start-up failed: ${(error as Error).message}`);
  await db.stop();
  process.exit(1);
}

try {
  say(migrationSummary(await migrate(database.url)));
} catch (error) {
  await startupFailed(error, database);
}
await unlessStopping();

if (!dev && consoleBuildIsStale(root)) {
  say('building the console (next build)…');
  buildProc = spawn(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], { stdio: 'inherit', env, detached: true });
  const [status] = (await once(buildProc, 'exit')) as [number | null];
  await unlessStopping();
  if (status !== 0) await startupFailed(new Error(`next build failed (exit ${status}; its output is above)`), database);
}

// The worker runs compiled (lib/infra/worker-build.ts): built here when its sources changed.
let bundle = '';
if (startsWorker) {
  try {
    bundle = await ensureWorkerBuild(root, say);
  } catch (error) {
    await startupFailed(error, database);
  }
}
await unlessStopping();

// The admin and the demo jobs come after the builds, right before the worker starts: demo jobs
// seeded before a first build of a few minutes would start with their first slots misfired.
try {
  const { bootstrap } = await import('../prisma/seed.ts');
  const boot = await bootstrap(database.url, { consoleUrl: consoleOrigin });
  for (const line of boot.messages) say(line);
  // secrets under .tickflow/ are for this user only (lib/infra/private-files.ts)
  lockDownDataDir(path.resolve(process.env.TICKFLOW_DATA_DIR ?? path.join(root, '.tickflow')));
} catch (error) {
  await startupFailed(error, database);
}
await unlessStopping();

function portFree(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(p, listen.host, () => server.close(() => resolve(true)));
  });
}

if (!(await portFree(port))) {
  await startupFailed(new Error(`port ${port} is already in use (another Tickflow console, or another program); stop it or set PORT`), database);
}
await unlessStopping();

const nextBin = path.join(root, 'node_modules/next/dist/bin/next');
const exitWithParent = pathToFileURL(path.join(root, 'scripts/exit-with-parent.mjs')).href;
// Both children get an IPC channel and the exit-with-parent preload, so they
// never outlive this supervisor, and a process group of their own, so a signal
// meant for this supervisor's group reaches them only through stop().
const childStdio: ['ignore', 'pipe', 'pipe', 'ipc'] = ['ignore', 'pipe', 'pipe', 'ipc'];
// The console also gets the peer-address hook (client addresses for the login limit,
// lib/auth/client-address.ts); each child gets only the secrets it uses (lib/infra/service-env.ts).
const peerAddress = pathToFileURL(path.join(root, 'scripts/peer-address.mjs')).href;
/**
 * Starts the console. A console that dies unexpectedly (a crash, an out-of-memory kill) is restarted
 * by the embedded database's rule (lib/infra/restart-schedule.ts): the worker keeps scheduling and
 * running jobs meanwhile, as it does under a service manager; after 5 ends within 10 minutes the
 * stack gives up, stops in order and exits 1. A console that exits 0 was stopped on purpose (a
 * signal sent to its own pid): the stack stops, exit 1, since it cannot serve without it.
 */
const consoleRestarts = createRestartSchedule(CONSOLE_RESTARTS);
function startConsole(): void {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--import', exitWithParent, '--import', peerAddress, nextBin, dev ? 'dev' : 'start', ...nextListenArgs(listen)], {
    env: { ...consoleEnv(env), TICKFLOW_SERVICE: 'console' },
    stdio: childStdio,
    detached: true,
  });
  consoleProc = child;
  prefixed(child, 'console');
  child.once('exit', (code) => {
    if (shuttingDown) return;
    if (code === 0) {
      console.error(`[tickflow] console exited (${howItEnded(child)})`);
      stop('drain', 1, 'the console exited');
      return;
    }
    // What the console left in its process group goes with it (`next dev` serves from a child
    // process, which would keep the port from the restarted console).
    killGroup(child, 'SIGKILL');
    const next = consoleRestarts.afterEnd(Date.now() - startedAt);
    if (next.giveUp) {
      console.error(`[tickflow] giving up on the console: it exited (${howItEnded(child)}), ${next.giveUp}; stopping Tickflow (exit 1)`);
      stop('drain', 1, 'the console keeps exiting');
      return;
    }
    console.error(`[tickflow] console exited (${howItEnded(child)}); restarting it in ${next.delayMs / 1000} s`);
    setTimeout(() => { if (!shuttingDown) startConsole(); }, next.delayMs);
  });
}
startConsole();

/**
 * Starts the worker; a worker that dies unexpectedly is restarted by the supervisor's rule
 * (lib/infra/restart-schedule.ts): its claimed tasks are reclaimed when their leases expire, and
 * the console stays up meanwhile.
 */
const workerRestarts = createRestartSchedule(SUPERVISED_RESTARTS);
// The demo `http` health check calls this console on loopback: allow exactly its route. Not the
// whole port: a step posting wrong passwords to the sign-in from 127.0.0.1 would lock out every
// user who reaches the console on loopback (the login rate limit counts by client address).
const outboundAllowForWorker = [process.env.TICKFLOW_OUTBOUND_ALLOW, ...consoleHealthAllowEntries(consoleOrigin, port)].filter(Boolean).join(',');
async function startWorker() {
  if (workerProc) {
    // A restart runs the sources on disk, as a new `npm run worker` would; sources that do
    // not build (an edit in progress) leave the last build running.
    try {
      bundle = await ensureWorkerBuild(root, say);
    } catch (error) {
      console.error(`[tickflow] ${(error as Error).message}\n[tickflow] restarting the worker's last build`);
    }
    if (shuttingDown) return;
  }
  const startedAt = Date.now();
  const child = spawn(process.execPath, workerNodeArgs(bundle, ['--import', exitWithParent]), {
    env: { ...workerEnv(env), TICKFLOW_OUTBOUND_ALLOW: outboundAllowForWorker, TICKFLOW_SERVICE: 'worker' },
    stdio: childStdio,
    detached: true,
  });
  workerProc = child;
  prefixed(child, 'worker');
  child.once('exit', (code) => {
    if (shuttingDown) return;
    if (code === 2) {
      // Exit 2 is a configuration error (a bad variable, a handler module that does not load):
      // restarting would only repeat it. The worker printed what to fix.
      console.error('[tickflow] worker exited (exit 2): a configuration error, see above');
      stop('drain', 2, "the worker's configuration error");
      return;
    }
    if (code === 0) {
      // Exit 0 is a clean stop someone asked the worker itself for (a signal sent to its pid): it
      // drained and marked itself stopped. Restarting it would undo the request, as systemd's
      // Restart=on-failure would not; the console keeps running.
      say('worker stopped cleanly (exit 0: it was asked to stop directly) and is not restarted; the console keeps running. Restart Tickflow to run a worker here again, or use Drain on the Workers page to pause one without stopping it');
      return;
    }
    const { delayMs } = workerRestarts.afterEnd(Date.now() - startedAt);
    console.error(`[tickflow] worker exited (${howItEnded(child)}); restarting it in ${delayMs / 1000} s`);
    setTimeout(() => { if (!shuttingDown) void startWorker(); }, delayMs);
  });
}
if (startsWorker) await startWorker();
say(`console: ${listen.host ? consoleOrigin : `http://localhost:${port} (every interface; TICKFLOW_HOST=127.0.0.1 keeps it on this machine)`}  (${ctrlCStops(running())})`);
if (!startsWorker) say('no worker here (TICKFLOW_START_WORKER=0): jobs run on the workers started with `npm run worker`');
