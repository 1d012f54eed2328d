/**
 * The shell guardian: one small POSIX sh process per worker process that kills the
 * `shell` executor's process groups and removes their temp directories when the worker
 * dies, however it dies (SIGKILL, OOM killer, a crash), before another worker's reaper can
 * reclaim the lease and start the next attempt (README "Workers, claims and leases").
 *
 * Why a separate process: a shell task runs in its own session and process group
 * (spawn `detached`, so that killing the group on timeout reaches `sh -c`'s children) and
 * is reparented to PID 1 when the worker dies; nothing in the kernel stops it. Node has no
 * prctl(PR_SET_PDEATHSIG), and that would only reach the direct child, not its group.
 *
 * How it learns of the death: its stdin is one end of a socket pair whose other end only
 * the worker holds (libuv opens the parent's end close-on-exec, and a shell child gets only
 * its own three pipes, so no task can keep it open). When the worker exits the kernel closes
 * that end; the guardian's `read` sees end of file, it SIGKILLs every process group still
 * registered, removes every temp directory still registered, and exits. A worker that stops
 * normally has unregistered everything by then (its attempts ended), so the guardian just exits.
 *
 * Protocol (one line each, written by the worker): `G <pgid>` / `g <pgid>` register and
 * unregister a process group; `D <dir>` / `d <dir>` a temp directory (only the executor's own
 * `…/tickflow-shell-…` directories, never a step's `cwd`; the script refuses other paths);
 * `A <ms>` (alive) sets the dead man's deadline: that many milliseconds from now.
 *
 * The dead man's deadline covers a worker that lives but cannot act: stopped (SIGSTOP, a
 * debugger), or its event loop blocked. Its socket stays open, so end of file never comes, while
 * its heartbeat no longer renews its leases: the reaper hands its tasks to another worker, and
 * without a deadline the program would run on beside the next attempt until the worker woke up
 * and aborted it. While process groups are registered the worker says `A` every second with
 * how long it could fall silent before any of its leases might be reclaimed
 * (worker/shell-deadline.ts, docs/engine.md "Work outside the worker process"); when that passes without
 * a word the guardian SIGKILLs every registered group and forgets them (temp directories stay
 * registered: the worker removes them when it wakes, or the guardian at its death).
 *
 * The guardian runs in its own session (spawn `detached` = setsid) and ignores HUP, INT, TERM
 * and QUIT, so a signal sent to the worker's process group or terminal (Ctrl-C, a supervisor
 * stopping the group) does not take it down first. If it dies anyway (killed by hand), the
 * worker starts a new one at the next registration and replays what is registered.
 * Cost: four small `sh` processes per worker (dash: 0.8 MB together, proportional set size, with
 * 64 attempts registered), idle in `read` but for the ticker's `sleep` each second; started at
 * the first shell attempt, so a worker that runs none has no guardian.
 * It is the idea of scripts/exit-with-parent.mjs (a channel the kernel closes when the parent
 * dies) in sh rather than node, whose smallest process is about 40 MB resident.
 *
 * Left open, deliberately: the microseconds between spawn() returning and the `G` line being
 * written (both in one synchronous stretch of the event loop); a SIGKILL landing exactly there
 * leaves that one group running.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { HandlerError } from './types.ts';

/** Basename prefix of the executor's private temp directories (shell-sandbox.ts shellWorkdir). */
export const SHELL_WORKDIR_PREFIX = 'tickflow-shell-';

/**
 * The guardian, as `sh -c` text. It says `ready` once its traps are set (then lets go of its
 * stdout, so that it holds no pipe to the worker). Two processes feed one loop through a pipe:
 * the worker's lines, copied a whole line per write (so that they never interleave with the
 * ticker's), then `E` at end of file (the worker's end closed); and a ticker's `T` every
 * `tick` seconds, on which the loop checks the deadline an `A <ms>` line set. `set -f` and IFS =
 * newline: the lists are newline-separated and a directory name is never globbed or split at
 * spaces. The clock is /proc/uptime (CLOCK_BOOTTIME: it does not step with the wall clock),
 * `date +%s` where there is none; TICKFLOW_GUARDIAN_CLOCK and TICKFLOW_GUARDIAN_TICK (a file
 * in /proc/uptime's format, the ticker's seconds) are for tests: the worker starts the guardian
 * with PATH alone in its environment.
 */
export const GUARDIAN_SCRIPT = `
trap '' HUP INT TERM QUIT PIPE
echo ready
exec >/dev/null
set -f
nl='
'
clock=\${TICKFLOW_GUARDIAN_CLOCK:-/proc/uptime}
tick=\${TICKFLOW_GUARDIAN_TICK:-1}
now_ms() {
  up=
  IFS=' ' read -r up rest < "$clock" 2>/dev/null
  case $up in
    *[!0-9.]*|'') now=$(( $(date +%s) * 1000 )) ;;
    *.*) f=\${up#*.}000; f=\${f%"\${f#???}"}; now=$(( \${up%%.*} * 1000 + 1$f - 1000 )) ;;
    *) now=$(( up * 1000 )) ;;
  esac
}
{
  while sleep "$tick"; do echo T 2>/dev/null || exit 0; done &
  ticker=$!
  while IFS= read -r line; do printf '%s\\n' "$line" || break; done
  echo E
  kill "$ticker" 2>/dev/null
} | {
IFS=$nl
groups=
dirs=
deadline=
drop() { r=; for x in $1; do [ "$x" = "$2" ] || r=$r$x$nl; done; }
while IFS= read -r line; do
  case $line in
    T)
      [ -n "$deadline" ] && [ -n "$groups" ] || continue
      now_ms
      [ "$now" -ge "$deadline" ] || continue
      for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
      groups=
      deadline=
      continue ;;
    E) break ;;
  esac
  v=\${line#? }
  case $line in
    'G '*|'g '*|'A '*) case $v in ''|*[!0-9]*) continue ;; esac ;;
    'D '*|'d '*) case $v in /*/${SHELL_WORKDIR_PREFIX}*) ;; *) continue ;; esac ;;
    *) continue ;;
  esac
  case $line in
    'A '*) now_ms; deadline=$(( now + v )) ;;
    'G '*) groups=$groups$v$nl ;;
    'g '*) drop "$groups" "$v"; groups=$r ;;
    'D '*) dirs=$dirs$v$nl ;;
    'd '*) drop "$dirs" "$v"; dirs=$r ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
for d in $dirs; do rm -rf -- "$d" 2>/dev/null || { chmod -R u+rwx -- "$d" 2>/dev/null; rm -rf -- "$d"; }; done
:
}
`;

/**
 * One protocol line (with its newline) registering (`add`) or unregistering a process group id
 * or a temp directory.
 * @throws Error for a process group id that is not a positive integer, or a directory that is not
 *   an absolute path whose basename starts with SHELL_WORKDIR_PREFIX or that holds a newline
 *   (the guardian would remove the wrong thing, or nothing)
 */
export function guardianLine(kind: 'group' | 'dir', add: boolean, value: number | string): string {
  if (kind === 'group') {
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 1) throw new Error(`shell guardian: bad process group id ${String(value)}`);
    return `${add ? 'G' : 'g'} ${value}\n`;
  }
  const dir = String(value);
  if (!path.isAbsolute(dir) || dir.includes('\n') || !path.basename(dir).startsWith(SHELL_WORKDIR_PREFIX) || path.dirname(dir) === '/') {
    throw new Error(`shell guardian: refusing to register ${JSON.stringify(dir)} (not a ${SHELL_WORKDIR_PREFIX} temp directory)`);
  }
  return `${add ? 'D' : 'd'} ${dir}\n`;
}

export interface ShellGuardian {
  /** pid of the running guardian process, if one is running */
  readonly pid: number | undefined;
  /**
   * Makes sure a guardian runs (starting one, and replaying the registrations, if none does).
   * @throws HandlerError (code `guardian`) when /bin/sh cannot be started: a shell attempt must
   *   not run without it
   */
  ready(): Promise<void>;
  /** Registers a process group (its leader's pid) to SIGKILL if the worker dies; call right after spawn. */
  addGroup(pgid: number): void;
  removeGroup(pgid: number): void;
  /** Registers a temp directory (SHELL_WORKDIR_PREFIX) to remove if the worker dies. */
  addDir(dir: string): void;
  removeDir(dir: string): void;
  /**
   * Arms the dead man's deadline: while groups are registered, every ALIVE_EVERY_MS this handle
   * tells the guardian `deadlineMs()` (ms it may wait for the next word before it SIGKILLs every
   * registered group). Without it the guardian kills only when the worker dies.
   */
  watch(deadlineMs: () => number): void;
  /**
   * How long this process was silent past a deadline it gave, if it was since `sinceMs`
   * (performance.now() ms): the guardian may have killed the groups then. 0 when it was not.
   */
  silentPastDeadlineSince(sinceMs: number): number;
  /** Ends the guardian (the worker stops): it SIGKILLs what is still registered, removes the directories and exits. */
  close(): void;
}

type GuardianChild = ChildProcessByStdio<Writable, Readable, null>;

/** How long a new guardian may take to say `ready` (ms); it takes about 1 ms. */
const GUARDIAN_READY_MS = 10_000;

/** How often (ms) a watched guardian hears `A` while process groups are registered. */
export const ALIVE_EVERY_MS = 1000;

/**
 * A guardian handle; its process starts at the first ready(). `sh` is the shell to run and
 * `testEnv` adds TICKFLOW_GUARDIAN_CLOCK / TICKFLOW_GUARDIAN_TICK to its environment (tests only).
 */
export function createShellGuardian(sh = '/bin/sh', testEnv: Record<string, string> = {}): ShellGuardian {
  const groups = new Set<number>();
  const dirs = new Set<string>();
  let child: GuardianChild | null = null;
  let starting: Promise<void> | null = null;
  let deadlineMs: (() => number) | null = null;
  let aliveTimer: NodeJS.Timeout | null = null;
  /** when `A` was last written (performance.now() ms) and the deadline it gave */
  let lastAlive: { at: number; deadlineMs: number } | null = null;
  /** the latest stretch of silence past a given deadline: when it ended and how long it was (ms) */
  let lastSilence: { endedAt: number; silentMs: number } | null = null;

  const write = (line: string) => {
    // The socket is writable until the worker exits; a guardian that died meanwhile is
    // replaced by the next ready(), which replays the sets below.
    if (child && child.exitCode === null && child.signalCode === null) child.stdin.write(line);
  };

  /** Says `A` with the current deadline, noting first whether this process was silent past the last one. */
  const alive = () => {
    if (!deadlineMs) return;
    const at = performance.now();
    if (lastAlive && at - lastAlive.at > lastAlive.deadlineMs) lastSilence = { endedAt: at, silentMs: at - lastAlive.at };
    const ms = Math.max(0, Math.floor(deadlineMs()));
    lastAlive = { at, deadlineMs: ms };
    write(`A ${ms}\n`);
  };
  /** `A` every ALIVE_EVERY_MS while groups are registered; a timer that keeps no event loop alive. */
  const keepAlive = () => {
    if (!deadlineMs) return;
    if (groups.size === 0) {
      if (aliveTimer) clearInterval(aliveTimer);
      aliveTimer = null;
      lastAlive = null;
      return;
    }
    if (aliveTimer) return;
    aliveTimer = setInterval(alive, ALIVE_EVERY_MS);
    aliveTimer.unref();
  };

  function start(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const c: GuardianChild = spawn(sh, ['-c', GUARDIAN_SCRIPT], {
        // stdin: the socket only this process holds; stdout: for `ready` only; no stderr, so that
        // the guardian keeps no pipe of the worker's supervisor open after the worker died.
        stdio: ['pipe', 'pipe', 'ignore'] as const,
        detached: true,
        env: { ...testEnv, PATH: process.env.PATH || '/usr/bin:/bin' } as unknown as NodeJS.ProcessEnv,
      });
      let settled = false;
      const fail = (why: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (child === c) child = null;
        try {
          c.kill('SIGKILL');
        } catch {
          /* not started */
        }
        reject(new HandlerError(`shell: cannot start the shell guardian (${sh}): ${why}; refusing to run a program that could outlive this worker`, { code: 'guardian' }));
      };
      const timer = setTimeout(() => fail(`no \`ready\` within ${GUARDIAN_READY_MS} ms`), GUARDIAN_READY_MS);
      c.once('error', (err: Error) => fail(err.message));
      c.once('exit', (code, signal) => {
        if (child === c) child = null;
        fail(`it exited (${signal ?? `code ${code}`}) before it was ready`);
      });
      let said = '';
      c.stdout.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (settled || !said.includes('ready\n')) return;
        settled = true;
        clearTimeout(timer);
        c.stdout.destroy();
        child = c;
        // Neither the process nor its socket keeps the worker's event loop alive.
        c.unref();
        (c.stdin as unknown as { unref?: () => void }).unref?.();
        c.stdin.on('error', () => undefined);
        for (const g of groups) c.stdin.write(guardianLine('group', true, g));
        for (const d of dirs) c.stdin.write(guardianLine('dir', true, d));
        if (groups.size > 0) alive();
        resolve();
      });
    });
  }

  return {
    get pid() {
      return child?.pid;
    },
    ready() {
      if (child && child.exitCode === null && child.signalCode === null) return Promise.resolve();
      starting ??= start().finally(() => {
        starting = null;
      });
      return starting;
    },
    addGroup(pgid) {
      groups.add(pgid);
      write(guardianLine('group', true, pgid));
      // A deadline from the first moment: the guardian's last one may have lapsed while nothing ran.
      alive();
      keepAlive();
    },
    removeGroup(pgid) {
      if (groups.delete(pgid)) write(guardianLine('group', false, pgid));
      keepAlive();
    },
    addDir(dir) {
      dirs.add(dir);
      write(guardianLine('dir', true, dir));
    },
    removeDir(dir) {
      if (dirs.delete(dir)) write(guardianLine('dir', false, dir));
    },
    watch(fn) {
      deadlineMs = fn;
      keepAlive();
    },
    silentPastDeadlineSince(sinceMs) {
      // Timers run before the child's exit is seen when the process wakes, so the silence is
      // usually on record by then; the open stretch counts as well.
      const now = performance.now();
      if (lastAlive && now - lastAlive.at > lastAlive.deadlineMs) return now - lastAlive.at;
      return lastSilence && lastSilence.endedAt >= sinceMs ? lastSilence.silentMs : 0;
    },
    close() {
      if (aliveTimer) clearInterval(aliveTimer);
      aliveTimer = null;
      deadlineMs = null;
      if (child && child.exitCode === null && child.signalCode === null) child.stdin.end();
      child = null;
    },
  };
}

let processGuardian: ShellGuardian | undefined;

/** The guardian of this process (one per worker process, shared by every shell attempt). */
export function shellGuardian(): ShellGuardian {
  return (processGuardian ??= createShellGuardian());
}
