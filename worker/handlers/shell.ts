/**
 * `shell` executor: runs one program with an argv array (no shell string
 * parsing: to use a shell, say so, e.g. `["/bin/sh", "-c", "..."]`).
 *
 * Settings (config overlaid by payload, parsed by lib/handlers/builtin-schemas.ts ShellSettings,
 * the schema a save checks too; a bad one fails the attempt naming `payload.<field>`): `command` (string[] argv, required;
 * `argv` accepted as an alias), `cwd` (absolute, outside the checkout; default a
 * private temp directory per attempt), `env` (added to the scrubbed environment),
 * `input` (stdin text). The sandbox (environment, directory, user dropped from
 * root) is worker/handlers/shell-sandbox.ts.
 * stdout/stderr are captured up to SHELL_OUTPUT_CAP_BYTES each. The exit code is
 * recorded in `tasks.exit_code`; non-zero fails the attempt.
 * On abort (timeout, cancel, shutdown) the process group gets SIGTERM, then
 * SIGKILL after `killGraceMs` (default 5 s; a task may set 0..10 minutes, lib/handlers/number-settings.ts;
 * anything else fails the attempt naming `payload.killGraceMs`), so a program that traps TERM still dies.
 * The attempt ends when the program exits: processes it left behind that still hold its output
 * once SHELL_EXIT_DRAIN_MS passed without any (or the attempt was aborted) are killed with its
 * process group, and no longer waited for.
 * If the worker dies (even by SIGKILL) the shell guardian (shell-guardian.ts) SIGKILLs the
 * attempt's process group and removes its temp directory at once, well before the lease can be
 * reclaimed, so the next attempt never overlaps this one; if the worker stalls (SIGSTOP, a blocked
 * event loop) past the guardian's deadline, the guardian SIGKILLs the group before the lease can
 * run out, and the attempt fails with code `worker_stalled` when the worker wakes.
 * Refused unless the worker runs with TICKFLOW_ALLOW_SHELL=1: running arbitrary
 * programs is an explicit operator decision per worker.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import { ShellSettings } from '../../lib/handlers/builtin-schemas.ts';
import { builtinSettings, HandlerError, numberSetting, resultWithExitCode, settings, writeTaskLogLine, type Handler, type TaskLog } from './types.ts';
import { shellEnv, shellIdentity, shellWorkdir } from './shell-sandbox.ts';
import { signalProcessGroup } from '../../lib/infra/process-group.ts';
import { shellGuardian, type ShellGuardian } from './shell-guardian.ts';
import { DEFAULT_TASK_LOG_CONFIG } from '../task-log-writer.ts';
import { utf8Prefix } from '../../lib/net/read-capped.ts';

export const SHELL_OUTPUT_CAP_BYTES = 64 * 1024;
export const DEFAULT_KILL_GRACE_MS = 5000;
/**
 * How long (ms) the output of a program that exited may still take to arrive before the attempt
 * stops waiting for it: past it, processes the program left behind hold the pipes (runChild).
 */
export const SHELL_EXIT_DRAIN_MS = 1000;

export interface ShellOptions {
  allowShell: boolean;
  killGraceMs?: number;
  /** kills the attempts' process groups if the worker dies (default: this process's, shell-guardian.ts) */
  guardian?: ShellGuardian;
  /** the task log's line size (bytes, TICKFLOW_TASK_LOG_MAX_LINE_BYTES): longer output lines are split at it (LineSplitter) */
  maxLineBytes?: number;
  /** ms the output may still arrive after the program exited (default SHELL_EXIT_DRAIN_MS) */
  exitDrainMs?: number;
}

class CappedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer) {
    if (this.size >= this.cap) {
      this.truncated = true;
      return;
    }
    const room = this.cap - this.size;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (part.length < chunk.length) this.truncated = true;
    this.chunks.push(part);
    this.size += part.length;
  }
  text() {
    const all = Buffer.concat(this.chunks);
    // cut at the cap: not inside a character, which would read as U+FFFD
    return this.truncated ? utf8Prefix(all, all.length) : all.toString('utf8');
  }
}

/**
 * Splits a program's output stream into task log lines (one per `\n`, a trailing `\r` dropped),
 * decoding UTF-8 across chunk boundaries; `end()` writes an unterminated last line. A line longer
 * than `maxLineBytes` UTF-8 bytes — the most the task log stores of one line (worker/task-log-writer.ts
 * `maxLineBytes`) — is written as several lines of at most that size, never cutting a character, so
 * no text of it is lost and the lines do not depend on how the program chunked its writes.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private partial = '';
  constructor(
    private readonly emit: (line: string) => void,
    private readonly maxLineBytes: number = DEFAULT_TASK_LOG_CONFIG.maxLineBytes,
    /** where a piece may end near the most that fits (TaskLog.lineCut: not inside a secret value) */
    private readonly lineCut?: (text: string, at: number) => number,
  ) {}
  push(chunk: Buffer) {
    let text = this.partial + this.decoder.write(chunk);
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl);
      this.emitSplit(line.endsWith('\r') ? line.slice(0, -1) : line);
      text = text.slice(nl + 1);
    }
    // an unfinished line is held until its newline, at most one piece of it
    this.partial = this.emitFullPieces(text);
  }
  end() {
    const rest = this.partial + this.decoder.end();
    this.partial = '';
    if (rest) this.emitSplit(rest);
  }
  private emitSplit(line: string) {
    const rest = this.emitFullPieces(line);
    if (rest || line === '') this.emit(rest);
  }
  /** Writes the leading pieces of `text` that fill maxLineBytes; returns what is left (shorter). */
  private emitFullPieces(text: string): string {
    // a UTF-16 code unit is at most 3 bytes of UTF-8: short text needs no counting
    while (text.length * 3 > this.maxLineBytes && Buffer.byteLength(text, 'utf8') > this.maxLineBytes) {
      const bytes = Buffer.from(text, 'utf8');
      let cut = this.maxLineBytes;
      while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--; // not inside a character
      let piece = bytes.subarray(0, cut).toString('utf8');
      const safe = this.lineCut?.(text, piece.length) ?? piece.length;
      if (safe < piece.length) piece = text.slice(0, safe);
      this.emit(piece);
      text = text.slice(piece.length);
    }
    return text;
  }
}

function streamLines(log: TaskLog, stream: 'stdout' | 'stderr', maxLineBytes?: number): LineSplitter {
  // stderr lines are warnings, so that a level filter of `warn` shows them.
  const level = stream === 'stderr' ? 'warn' : 'info';
  return new LineSplitter((text) => writeTaskLogLine(log, { level, stream, text }), maxLineBytes, log.lineCut?.bind(log));
}

export function createShellHandler(options: ShellOptions): Handler {
  const killGraceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  return async (ctx) => {
    if (!options.allowShell) {
      throw new HandlerError(
        'shell executor is disabled on this worker: start the worker with TICKFLOW_ALLOW_SHELL=1 to allow running programs',
        { code: 'shell_disabled' },
      );
    }
    const raw = settings(ctx);
    const s = builtinSettings('shell', ShellSettings, raw);
    const [file, ...args] = (s.command ?? s.argv)!;
    const grace = numberSetting(raw, 'shell', 'killGraceMs', killGraceMs);
    const identity = shellIdentity();
    if (ctx.signal.aborted) throw ctx.signal.reason;
    // No program starts unless the guardian runs: one left behind by a dead worker would overlap
    // the next attempt (shell-guardian.ts).
    const guardian = options.guardian ?? shellGuardian();
    await guardian.ready();
    const workdir = await shellWorkdir(s.cwd, identity);
    if (workdir.temporary) guardian.addDir(workdir.dir);
    try {
      const env = shellEnv(s.env ?? {}, workdir.dir, identity);
      return await runChild(ctx, file!, args, { cwd: workdir.dir, env, grace, identity, input: s.input, guardian, maxLineBytes: options.maxLineBytes, exitDrainMs: options.exitDrainMs });
    } finally {
      await workdir.cleanup();
      if (workdir.temporary) guardian.removeDir(workdir.dir);
    }
  };
}

async function runChild(
  ctx: Parameters<Handler>[0],
  file: string,
  args: string[],
  o: { cwd: string; env: Record<string, string>; grace: number; identity: ReturnType<typeof shellIdentity>; input: unknown; guardian: ShellGuardian; maxLineBytes?: number; exitDrainMs?: number },
) {
  {
    const grace = o.grace;
    const s = { input: o.input };
    const stdout = new CappedBuffer(SHELL_OUTPUT_CAP_BYTES);
    const stderr = new CappedBuffer(SHELL_OUTPUT_CAP_BYTES);
    let child: ReturnType<typeof spawnChild>;
    try {
      child = spawnChild(file, args, o);
    } catch (err) {
      // spawn() throws rather than emitting 'error' for some failures: E2BIG (argv and environment
      // over the kernel's limit), an argument holding a NUL byte
      const e = err as NodeJS.ErrnoException;
      const why = e.code === 'E2BIG' ? 'its arguments and environment are larger than the system allows (E2BIG)' : e.message;
      throw new HandlerError(`shell: cannot start ${file}: ${why}`, { code: 'spawn' });
    }
    // In the same synchronous stretch as spawn(): the group (pgid = the leader's pid, as it is
    // detached) is known to the guardian before anything else can run in this process.
    const pgid = child.pid;
    if (pgid !== undefined) o.guardian.addGroup(pgid);
    const spawnedAt = performance.now();
    ctx.taskLog.info(`$ ${[file, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`, { cwd: o.cwd });
    const started = Date.now();
    const outLines = streamLines(ctx.taskLog, 'stdout', o.maxLineBytes);
    const errLines = streamLines(ctx.taskLog, 'stderr', o.maxLineBytes);
    let outputSeq = 0; // counts chunks read, for the drain after the program's exit
    child.stdout.on('data', (c: Buffer) => {
      outputSeq++;
      stdout.push(c);
      outLines.push(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      outputSeq++;
      stderr.push(c);
      errLines.push(c);
    });
    child.stdin.on('error', () => undefined);
    if (typeof s.input === 'string') child.stdin.end(s.input);
    else child.stdin.end();

    // Signal the whole process group (detached => the child leads its own group),
    // so `sh -c 'sleep 30'` does not leave the sleep behind; never a group that took the
    // number after the child was reaped (lib/infra/process-group.ts).
    const killGroup = (sig: NodeJS.Signals) => {
      if (signalProcessGroup(child, sig)) return;
      try {
        child.kill(sig);
      } catch {
        /* gone */
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    let abortedAt: number | undefined;
    const onAbort = () => {
      abortedAt = Date.now();
      ctx.log.info({ pid: child.pid, graceMs: grace }, 'shell: abort, sending SIGTERM');
      killGroup('SIGTERM');
      killTimer = setTimeout(() => {
        ctx.log.warn({ pid: child.pid }, 'shell: still alive after grace, sending SIGKILL');
        killGroup('SIGKILL');
      }, grace);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });

    let drainTimer: NodeJS.Timeout | undefined;
    let heldOpen = false;
    const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', (err) => reject(new HandlerError(`shell: cannot start ${file}: ${err.message}`, { code: 'spawn' })));
      child.once('close', (c, sig) => resolve({ code: c, signal: sig }));
      // 'close' waits for stdout/stderr to end, which a process the program started and left behind
      // (`cmd &`, `setsid cmd`, a double fork) holds open for as long as it lives: the attempt would
      // never end, not even at its timeout. Once the program itself has exited, its output gets
      // SHELL_EXIT_DRAIN_MS to arrive; then what is left of its process group is killed and the
      // pipes are closed.
      // While output still arrives (and the attempt is not aborted) the wait goes on: a busy event loop
      // may not have read what the program wrote before its exit yet.
      child.once('exit', (c, sig) => {
        const arm = (seenSeq: number) => {
          drainTimer = setTimeout(() => {
            if (outputSeq !== seenSeq && !ctx.signal.aborted) return arm(outputSeq);
            heldOpen = true;
            killGroup('SIGKILL');
            child.stdout.destroy();
            child.stderr.destroy();
            resolve({ code: c, signal: sig });
          }, o.exitDrainMs ?? SHELL_EXIT_DRAIN_MS);
        };
        arm(outputSeq);
      });
    }).finally(() => {
      ctx.signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (drainTimer) clearTimeout(drainTimer);
      if (pgid !== undefined) o.guardian.removeGroup(pgid);
    });
    if (heldOpen) {
      ctx.taskLog.warn(
        `${file} exited, but processes it started still held its stdout/stderr ${o.exitDrainMs ?? SHELL_EXIT_DRAIN_MS} ms later: what was left of its process group was killed and its output after that is not captured (a program that leaves its process group, setsid, keeps running)`,
      );
    }

    outLines.end();
    errLines.end();
    const exitCode = code ?? (signal ? 128 + (signalNumber(signal) ?? 0) : -1);
    ctx.taskLog[exitCode === 0 ? 'info' : 'error'](`${file} ${signal ? `killed by ${signal}` : `exited with code ${exitCode}`} after ${Date.now() - started} ms`, { exitCode, ...(signal ? { signal } : {}) });
    const output = {
      exitCode,
      ...(signal ? { signal } : {}),
      stdout: stdout.text(),
      stderr: stderr.text(),
      ...(stdout.truncated ? { stdoutTruncated: true } : {}),
      ...(stderr.truncated ? { stderrTruncated: true } : {}),
    };
    if (abortedAt !== undefined) {
      throw new HandlerError(`shell: ${file} stopped after abort (${signal ?? `exit ${code}`})`, { exitCode, output, code: 'aborted' });
    }
    const silentMs = signal === 'SIGKILL' ? o.guardian.silentPastDeadlineSince(spawnedAt) : 0;
    if (silentMs > 0) {
      throw new HandlerError(
        `shell: ${file} killed by the shell guardian: this worker was stalled for ${(silentMs / 1000).toFixed(1)} s, past the deadline that keeps its programs from outliving its lease (once the lease runs out, another worker may run the task)`,
        { exitCode, output, code: 'worker_stalled' },
      );
    }
    if (exitCode !== 0) {
      throw new HandlerError(`shell: ${file} exited with ${signal ? `signal ${signal}` : `code ${exitCode}`}`, { exitCode, output });
    }
    return resultWithExitCode(output, exitCode);
  }
}

/** The program of one attempt, leading a process group of its own (detached). */
function spawnChild(file: string, args: string[], o: { cwd: string; env: Record<string, string>; identity: ReturnType<typeof shellIdentity> }) {
  return spawn(file, args, {
    cwd: o.cwd,
    env: o.env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'] as const,
    detached: true,
    ...(o.identity ? { uid: o.identity.uid, gid: o.identity.gid } : {}),
  });
}

/** The number of a signal on this system (128 + it is the exit code a shell reports for a program it killed). */
function signalNumber(sig: NodeJS.Signals): number | undefined {
  return os.constants.signals[sig];
}
