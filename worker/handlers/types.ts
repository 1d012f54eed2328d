/**
 * Handlers: the named code a worker can execute (docs/design.md §1 "handler").
 *
 * - handler: an async function `(ctx) => output` registered under a name such as
 *   `builtin.echo`, `http`, `shell` or `sql`.
 * - context: what one attempt of one task gives its handler (payload, config,
 *   attempt number, ids, an AbortSignal that fires on timeout/cancel/shutdown,
 *   and a child logger).
 * - result: whatever the handler returns becomes `tasks.output` (JSON); a thrown
 *   error fails the attempt. A `HandlerError` may carry an exit code and output
 *   (the shell executor records the exit code even when it fails).
 */
import type { Logger } from 'pino';
import { setLongTimeout } from '../../lib/schedule/long-timeout.ts';
import type { z } from 'zod';
import { checkNumberSetting, numberSettingRules } from '../../lib/handlers/number-settings.ts';
import { BuiltinInputError, parseBuiltinSettings } from '../../lib/handlers/builtin-schemas.ts';
import { taskLogArguments } from '../task-log-arguments.ts';

export type JsonObject = Record<string, unknown>;

/** Levels of a task log line, lowest first. */
export type TaskLogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Where a task log line came from (docs/task-logs.md): `log` the handler's own lines,
 * `stdout`/`stderr` a program's output (shell), `progress` ctx.progress reports,
 * `system` lines the worker adds (dropped-lines marker, attempt failure).
 */
export type TaskLogStream = 'log' | 'stdout' | 'stderr' | 'progress' | 'system';

/** One line with its stream, for executors that write more than the handler's own `log` stream. */
export interface TaskLogLineInput {
  level: TaskLogLevel;
  stream: TaskLogStream;
  text: string;
  fields?: JsonObject;
}

/**
 * The log a handler writes for operators: lines belong to one attempt of one
 * task and are shown on the run page. `fields` is optional structured context;
 * plain JavaScript written in pino's order, `(fields, text?)` or `(error, text?)`,
 * stores the same line (worker/task-log-arguments.ts).
 * Calls never wait for the database (the worker stores lines in batches).
 */
export interface TaskLog {
  debug(text: string, fields?: JsonObject): void;
  info(text: string, fields?: JsonObject): void;
  warn(text: string, fields?: JsonObject): void;
  error(text: string, fields?: JsonObject): void;
  /** writes a line on a given stream; optional: see writeTaskLogLine */
  write?(line: TaskLogLineInput): void;
  /**
   * Where a long line may be cut into pieces near `at` (a UTF-16 index, the most that fits) without
   * splitting one of the attempt's secret values, which each piece would then show in part
   * (lib/secrets/secret-references.ts cutOutsideSecrets); optional: a log without it cuts at `at`.
   */
  lineCut?(text: string, at: number): number;
}

/** Writes `line` on its stream when the log supports streams, else as a `log` line of its level. */
export function writeTaskLogLine(log: TaskLog, line: TaskLogLineInput): void {
  if (log.write) log.write(line);
  else log[line.level](line.text, line.stream === 'log' ? line.fields : { ...line.fields, stream: line.stream });
}

export interface HandlerContext {
  /** the task's payload (step payload merged with the run's params) */
  payload: JsonObject;
  /** the step's config (static executor settings) */
  config: JsonObject;
  /** 1-based attempt number of this execution */
  attempt: number;
  taskId: string;
  runId: string;
  /** the key of the run's job (null when not known, e.g. a handler called outside a worker) */
  jobKey?: string | null;
  /** the run's nominal time (UTC): the schedule slot, or a manual / API run's trigger time; null when unknown */
  scheduledFor?: Date | null;
  /** aborted on timeout, cancellation or forced shutdown; reason says which */
  signal: AbortSignal;
  /** the worker's own logger (process log, not shown to operators) */
  log: Logger;
  /** the attempt's task log (shown on the run page) */
  taskLog: TaskLog;
  /** reports progress of the attempt: `done` of `total` units, with an optional message */
  progress(done: number, total?: number, message?: string): void;
  /** the task's timeout in ms (executors derive their own limits from it) */
  timeoutMs: number;
  /**
   * ms until this attempt's lease runs out by this worker's clock (from its claim or the last
   * renewal; negative once it has; -Infinity once the attempt was aborted as cancelled or its lease
   * lost): a worker that was stalled or cut off from the database past
   * its lease may have lost the task to another worker, so a handler about to make its work
   * permanent (the sql executor's COMMIT) checks it first. Absent outside a worker's runner.
   */
  leaseRemainingMs?(): number;
}

/** A task log that writes to a process logger only (handlers called outside a worker's runner, tests). */
export function loggerTaskLog(log: Logger): TaskLog {
  const at = (level: TaskLogLevel) => (first: unknown, second?: unknown) => {
    const { text, fields } = taskLogArguments(first, second);
    log[level]({ ...fields, taskLog: true }, text);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** What a handler resolves to: plain output, or output plus an exit code. */
export type HandlerResult = unknown | { output: unknown; exitCode: number; [HANDLER_RESULT]: true };

export const HANDLER_RESULT = Symbol.for('tickflow.handlerResult');

/** Wraps an output together with an exit code (shell executor). */
export function resultWithExitCode(output: unknown, exitCode: number): HandlerResult {
  return { output, exitCode, [HANDLER_RESULT]: true };
}

export function unwrapResult(value: unknown): { output: unknown; exitCode?: number } {
  if (value && typeof value === 'object' && (value as Record<symbol, unknown>)[HANDLER_RESULT] === true) {
    const v = value as { output: unknown; exitCode: number };
    return { output: v.output, exitCode: v.exitCode };
  }
  return { output: value };
}

export type Handler = (ctx: HandlerContext) => Promise<unknown>;

/** A failure with structured detail: exit code and partial output are recorded on the task. */
export class HandlerError extends Error {
  constructor(
    message: string,
    readonly detail: {
      exitCode?: number;
      output?: unknown;
      code?: string;
      /** false: retrying cannot help (bad input); the task goes dead at once */
      retryable?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'HandlerError';
  }
}

/** Reads an object-valued field, treating anything else as empty. */
export function asObject(value: unknown): JsonObject {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
}

/** Config then payload: payload fields override config fields (executor settings may live in either). */
export function settings(ctx: Pick<HandlerContext, 'config' | 'payload'>): JsonObject {
  return { ...asObject(ctx.config), ...asObject(ctx.payload) };
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    // setLongTimeout: a delay above 2^31-1 ms would otherwise fire at once (docs/engine-cases.md case 3).
    const timer = setLongTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      timer.clear();
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Truncates a UTF-8 string to at most `max` bytes, marking the cut (lib/net/read-capped.ts). */
export { capUtf8 as capText } from '../../lib/net/read-capped.ts';

export { MAX_SLEEP_MS } from '../../lib/handlers/number-settings.ts';

/**
 * Reads the numeric setting `name` of a shipped handler (number, or numeric string) from the
 * merged config+payload, by its rule in lib/handlers/number-settings.ts HANDLER_NUMBER_SETTINGS
 * (the check saving a job applies too). Absent (undefined/null) -> `fallback`. Anything else that
 * does not fit the rule fails the attempt with a HandlerError naming `payload.<name>` — never a
 * crash, never a silent default (H1: `{ "ms": 1e100 }` used to kill the worker).
 * @throws Error when the table has no such rule (a programming error, not the task's)
 */
export function numberSetting(s: JsonObject, handler: string, name: string, fallback: number): number {
  const rule = numberSettingRules(handler).find((r) => r.name === name);
  if (!rule) throw new Error(`no numeric setting ${name} of ${handler} in lib/handlers/number-settings.ts`);
  const checked = checkNumberSetting(s[name], rule);
  if ('problem' in checked) throw new HandlerError(`${handler}: payload.${name} ${checked.problem}`, { code: 'config' });
  return checked.value ?? fallback;
}

/**
 * The settings of a shipped executor (`http`, `sql`, `shell`) parsed by its schema in
 * lib/handlers/builtin-schemas.ts, the one a job save checks too.
 * @throws HandlerError (code `config`, not retryable: the same input fails again) naming every bad
 *   field, e.g. `http: payload.url: Invalid input: expected string, received number`
 */
export function builtinSettings<S extends z.ZodObject>(handler: string, schema: S, s: JsonObject): z.output<S> {
  try {
    return parseBuiltinSettings(handler, schema, s);
  } catch (err) {
    if (err instanceof BuiltinInputError) throw new HandlerError(err.message, { code: 'config', retryable: false });
    throw err;
  }
}
