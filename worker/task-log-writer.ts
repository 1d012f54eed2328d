/**
 * Task log writer: stores the lines handlers write (ctx.taskLog, ctx.progress, shell
 * stdout/stderr, executor summaries) in `task_log_lines` (docs/task-logs.md).
 *
 * - A handler's call only appends to an in-memory buffer (no await, no database round
 *   trip), so a chatty handler never waits for the database and never slows the queue.
 * - One writer per worker process; its buffer holds the lines of every running attempt
 *   and is sent as ONE `INSERT … SELECT FROM unnest(…)` per flush, on its own connection
 *   (never one of the pool the claims and completions use). A flush starts at most
 *   `flushMs` after the first buffered line (≤ 1000 ms), or at once when `batchLines`
 *   lines are waiting; one flush is in flight at a time. Lines therefore survive the
 *   process being killed, except those of the last flush interval.
 * - Limits per attempt (`maxLines`, `maxBytes`, counting text plus fields JSON): from the
 *   first line that does not fit, lines are dropped and counted (the stored lines are the
 *   attempt's first ones, without holes), and when the attempt ends its latest progress
 *   report made past the limits and ONE marker line (stream `system`, level warn) saying
 *   how many lines and bytes were dropped are written. A line's text is cut at `maxLineBytes`.
 * - Progress (`ctx.progress`) is a line on stream `progress` with fields `{ done, total }`;
 *   progress reported again before the next flush replaces the unsent one (at most one
 *   progress line per attempt per flush interval).
 * - When the database refuses a flush for a transient reason the batch is kept and sent
 *   again (backoff up to 5 s); beyond `maxBufferedLines` waiting lines new lines are
 *   dropped (counted per attempt like the limits); a batch put back is never cut. A batch refused for its VALUES (SQLSTATE
 *   class 22/23/54) is sent line by line so that one bad line cannot hold the others back.
 * - Text and JSON are made storable first (U+0000 and lone surrogates -> U+FFFD,
 *   worker/output.ts), since PostgreSQL refuses them.
 * - An attempt can run again on the same attempt number after its worker died within a
 *   moment of starting it (a held task handed back, docs/on-time.md "Prefetch"), elsewhere,
 *   with lines of the first run stored. So the first flush of an attempt opened here asks
 *   the database for the highest seq of the attempt's lines written before its first line
 *   (`time` < that line's: its own lines come after) and numbers its lines on from
 *   there (`Numbering`); readers page by seq (lib/task-logs/list-lines.ts), and a numbering
 *   from 1 again interleaved the two runs and hid the second's first lines from a reader
 *   already past them.
 */
import type { Logger } from 'pino';
import { pgErrorCode } from '../lib/engine/pg.ts';
import type { JsonObject, TaskLog, TaskLogLevel, TaskLogStream } from './handlers/types.ts';
import { safeString, taskLogArguments } from './task-log-arguments.ts';
import { describeError, jsonSafe, sanitizeJson, storableString } from './output.ts';
import { cutOutsideSecrets, maskSecrets, maskSecretsInJson } from '../lib/secrets/secret-references.ts';
import { envInt } from '../lib/infra/env-int.ts';

/** Per-attempt limits and the flush cadence; env names in taskLogConfigFromEnv. */
export interface TaskLogWriterConfig {
  /** longest wait between a line being written and its flush starting (ms, 10..1000) */
  flushMs: number;
  /** a flush starts at once when this many lines wait */
  batchLines: number;
  /** lines stored per attempt (the dropped-lines marker comes on top) */
  maxLines: number;
  /** bytes (text + fields JSON, UTF-8) stored per attempt */
  maxBytes: number;
  /** one line's text is cut at this many bytes */
  maxLineBytes: number;
  /** lines waiting in memory (database slow or down) before new lines are dropped */
  maxBufferedLines: number;
}

export const DEFAULT_TASK_LOG_CONFIG: TaskLogWriterConfig = {
  flushMs: 200,
  batchLines: 2000,
  maxLines: 10_000,
  maxBytes: 2 * 1024 * 1024,
  maxLineBytes: 8 * 1024,
  maxBufferedLines: 100_000,
};

/** The least a writer needs from a connection pool (pg.Pool satisfies it). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/** Which attempt a line belongs to. */
export interface AttemptKey {
  taskId: string;
  runId: string;
  jobId: string;
  attempt: number;
  /** the run's scheduled_for: the partition key of task_log_lines (docs/operations.md "History partitions") */
  scheduledFor: Date;
}

/** The handle the runner gets for one attempt. */
export interface AttemptLog {
  /** handed to the handler as ctx.taskLog */
  taskLog: TaskLog;
  /** handed to the handler as ctx.progress */
  progress(done: number, total?: number, message?: string): void;
  /**
   * the attempt ended (handler settled): writes `ending` (the line saying how it ended, stream `system`),
   * its latest progress made past the limits and the dropped-lines marker if needed, all three past the
   * limits, and flushes soon
   */
  close(ending?: { level: TaskLogLevel; text: string }): void;
}

/**
 * Where the seq of one opening of an attempt starts in the database: `base` (the highest seq of
 * the attempt's lines stored before `openedAt`, the instant the attempt was opened on this writer,
 * ISO; every line of the opening is stamped at or after it) is learnt from the first statement that
 * stores a line of it, and added to every row's own `seq` when it is sent.
 */
interface Numbering {
  readonly openedAt: string;
  base?: number;
}

interface Row {
  taskId: string;
  attempt: number;
  /** write order within this opening of the attempt, from 1; stored as seq + numbering.base */
  seq: number;
  numbering: Numbering;
  time: string;
  runId: string;
  jobId: string;
  /** the run's scheduled_for, ISO */
  scheduledFor: string;
  level: TaskLogLevel;
  stream: TaskLogStream;
  text: string;
  fields: string | null;
  bytes: number;
}

interface AttemptState {
  key: AttemptKey;
  seq: number;
  numbering: Numbering;
  /** secret values the attempt's settings were given: masked in its lines (lib/secrets/secret-references.ts maskedTexts) */
  masked: readonly string[];
  lines: number;
  bytes: number;
  droppedLines: number;
  droppedBytes: number;
  /** lines dropped because the writer's buffer was full (database slow/down) */
  droppedBacklog: number;
  /** an unflushed progress row that the next progress report replaces while no line followed it */
  pendingProgress?: Row;
  /** a line did not fit the attempt's limits: every later one is dropped too (the lines kept are a prefix, without holes) */
  full: boolean;
  /** the latest progress report made past the limits: written when the attempt ends, before the marker */
  lateProgress?: Row;
  closed: boolean;
}

// One JSON array parameter: building its text is one cheap concatenation per line (the fields
// JSON, already made storable, goes in as is), far cheaper in the worker than ten array literals.
// ON CONFLICT DO NOTHING: a batch is resent when its statement's answer was lost, and the lost
// statement may have committed; a line is its (task, attempt, seq, time), so the resent copies of
// stored lines are skipped instead of failing the batch into line-by-line refusals (a resent first
// batch finds the same base: its own lines are not before its opening instant).
// `o` is set on the rows of an opening whose base is not known yet (Numbering): one probe of the
// primary key per such opening, in the one partition of its scheduled_for, answered as (t, a, o, base).
const INSERT_SQL = `WITH x AS (
  SELECT * FROM json_to_recordset($1::json)
    AS x(t uuid, a int, s int, ts timestamptz, r uuid, sf timestamptz, j text, l task_log_level, st task_log_stream, x text, f jsonb, o timestamptz)),
b AS (
  SELECT d.t, d.a, d.o, coalesce((SELECT max(l.seq) FROM task_log_lines l
                                   WHERE l.task_id = d.t AND l.attempt = d.a AND l.scheduled_for = d.sf AND l.time < d.o), 0) AS base
    FROM (SELECT DISTINCT t, a, sf, o FROM x WHERE o IS NOT NULL) d),
ins AS (
  INSERT INTO task_log_lines (task_id, attempt, seq, time, run_id, scheduled_for, job_id, level, stream, text, fields)
  SELECT x.t, x.a, x.s + coalesce(b.base, 0), x.ts, x.r, x.sf, x.j, x.l, x.st, x.x, x.f
    FROM x LEFT JOIN b ON b.t = x.t AND b.a = x.a AND b.o = x.o
      ON CONFLICT DO NOTHING)
SELECT t::text AS t, a, o, base FROM b`;

const VALUE_ERROR_CLASSES = ['22', '23', '54'];
const LEVELS = new Set<string>(['debug', 'info', 'warn', 'error']);
const STREAMS = new Set<string>(['log', 'stdout', 'stderr', 'progress', 'system']);
/** Lines waiting in memory past which the writer warns that it is behind. */
const BEHIND_LINES = 20_000;
/** Rows per INSERT: lines that piled up during a slow flush go in several statements of bounded size. */
const MAX_ROWS_PER_INSERT = 5000;
/**
 * JSON.stringify writes U+0000 as `\u0000` and a lone surrogate as `\udXXX` (paired ones
 * raw), and PostgreSQL's jsonb refuses both. A literal backslash-u in a string also matches:
 * that only costs the slow (exact) path.
 */
const UNSTORABLE_JSON = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/** Cuts `text` to at most `max` UTF-8 bytes (never inside a character), saying how much was cut. */
function cutLine(text: string, max: number): string {
  if (text.length * 3 <= max) return text; // at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= max) return text;
  let cut = Buffer.from(text, 'utf8').subarray(0, max).toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  return `${cut}… [${bytes - Buffer.byteLength(cut, 'utf8')} bytes cut]`;
}

/**
 * An Error as fields: JSON.stringify writes an Error as `{}` (its name and message are not enumerable), or as its
 * enumerable extras alone (`{ "code": "ENOENT", … }`), so `ctx.log.error('failed', { err })` would keep nothing of
 * what failed. Its `name`, its `message` as a task error reads it (causes included, worker/output.ts
 * describeError) and its own enumerable properties are kept; not its stack (one line's fields are at most
 * maxLineBytes).
 */
function errorFields(e: Error): JsonObject {
  try {
    return { ...e, name: e.name, message: describeError(e) };
  } catch {
    return { message: describeError(e) }; // a throwing getter: a log call never throws
  }
}

/**
 * `fields` with an Error given as the fields, or as one of their top-level values, made readable (errorFields).
 * Deeper Errors are left as JSON.stringify writes them: looking for them would cost every line a walk.
 */
function withErrorsReadable(fields: JsonObject): JsonObject {
  if (fields instanceof Error) return errorFields(fields);
  if (typeof fields !== 'object') return fields;
  let out: JsonObject | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (v instanceof Error) (out ??= { ...fields })[k] = errorFields(v);
  }
  return out ?? fields;
}

function fmtBytes(n: number): string {
  return n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
}

export class TaskLogWriter {
  private buffer: Row[] = [];
  private readonly attempts = new Map<string, AttemptState>();
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private failures = 0;
  private stopped = false;
  /** counters for tests and diagnostics */
  readonly stats = { flushes: 0, linesWritten: 0, failedFlushes: 0 };

  constructor(
    readonly config: TaskLogWriterConfig,
    private readonly deps: { pool: Queryable; clock: () => Date; logger: Logger },
  ) {}

  /** Lines waiting to be sent. */
  get buffered(): number {
    return this.buffer.length;
  }

  /**
   * Opens the log of one attempt. Opening the same attempt twice (a late handler of an
   * attempt the runner already gave up on is still the same attempt) continues its
   * numbering.
   */
  open(key: AttemptKey, masked: readonly string[] = []): AttemptLog {
    const id = `${key.taskId}:${key.attempt}`;
    let st = this.attempts.get(id);
    if (!st) {
      st = { key, seq: 0, numbering: { openedAt: this.now() }, masked, lines: 0, bytes: 0, droppedLines: 0, droppedBytes: 0, droppedBacklog: 0, full: false, closed: false };
      this.attempts.set(id, st);
    } else if (masked.length) {
      st.masked = [...new Set([...st.masked, ...masked])].sort((a, b) => b.length - a.length);
    }
    const state = st;
    const at = (level: TaskLogLevel) => (first: unknown, second?: unknown) => {
      const { text, fields } = taskLogArguments(first, second);
      this.add(state, level, 'log', text, fields);
    };
    return {
      taskLog: {
        debug: at('debug'),
        info: at('info'),
        warn: at('warn'),
        error: at('error'),
        write: (line) => this.add(state, line.level, line.stream, line.text, line.fields),
        lineCut: (text, at) => (state.masked.length ? cutOutsideSecrets(text, at, state.masked) : at),
      },
      progress: (done, total, message) => this.progress(state, done, total, message),
      close: (ending) => this.close(id, state, ending),
    };
  }

  /** Sends everything buffered now (tests, shutdown); resolves when the database has it or gave up. */
  async flush(): Promise<void> {
    for (let i = 0; i < 1000 && (this.buffer.length > 0 || this.inFlight); i++) {
      if (this.inFlight) await this.inFlight;
      else await this.runFlush();
      if (this.failures > 0 && this.buffer.length > 0) return; // the database refuses: do not spin
    }
  }

  /**
   * The worker process is ending under every attempt still open (an uncaught exception: worker/index.ts):
   * writes `text`, with the secret values of all of them masked, as the last line of each (stream `system`, level error; past the limits too, like the
   * dropped-lines marker), ends them (their markers too) and flushes. Resolves when the database has the lines or after `timeoutMs`, whichever
   * is first: the process exits right after, and must not wait on a database that does not answer.
   */
  async endAll(text: string, timeoutMs: number): Promise<void> {
    // the exception may have come from any open attempt, and quote a secret value given to it: every
    // attempt's values are masked in the line each attempt gets (an attempt that holds none included)
    const open = [...this.attempts.values()].filter((st) => !st.closed);
    const masked = [...new Set(open.flatMap((st) => st.masked))];
    const shown = masked.length ? maskSecrets(text, masked) : text;
    for (const [id, st] of this.attempts) {
      if (st.closed) continue;
      // like the dropped-lines marker, never dropped itself: it says why the attempt's lines end
      const row = this.row(st, 'error', 'system', shown, undefined);
      row.seq = ++st.seq;
      this.buffer.push(row);
      this.close(id, st);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
    clearTimeout(timer);
  }

  /** Stops the timer after a last flush (worker shutdown). */
  async stop(): Promise<void> {
    for (const [id, st] of this.attempts) if (!st.closed) this.close(id, st);
    await this.flush();
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private add(st: AttemptState, level: TaskLogLevel, stream: TaskLogStream, text: unknown, fields?: JsonObject): void {
    const row = this.row(st, level, stream, text, fields);
    if (!this.admit(st, row)) return;
    this.push(row);
  }

  private progress(st: AttemptState, done: unknown, total?: unknown, message?: unknown): void {
    const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
    const d = num(done);
    const t = num(total);
    const text = typeof message === 'string' && message ? message : t !== null ? `${d ?? '?'} / ${t}` : `${d ?? '?'}`;
    const fields: JsonObject = { done: d, ...(t !== null ? { total: t } : {}) };
    const prev = st.pendingProgress;
    // Replace the unsent report in place (same seq, newer time and values) while it is still the attempt's last
    // line: after a line written since, it would carry a later time than that line under an earlier seq, and
    // seq is write order (docs/task-logs.md). Then the report is a line of its own.
    if (prev && prev.seq === st.seq) {
      const next = this.row(st, 'info', 'progress', text, fields, prev.seq);
      st.bytes += next.bytes - prev.bytes;
      Object.assign(prev, next);
      return;
    }
    const row = this.row(st, 'info', 'progress', text, fields);
    if (st.full || this.overLimits(st, row)) {
      // Past the limits a report is not a line but the attempt's state: the latest one is kept and written when
      // the attempt ends, so the run page's bar and the API's `progress` end where the handler did.
      st.full = true;
      st.lateProgress = row;
      return;
    }
    if (!this.admit(st, row)) return;
    st.pendingProgress = row;
    this.push(row);
  }

  private row(st: AttemptState, level: TaskLogLevel, stream: TaskLogStream, text: unknown, fields: JsonObject | undefined, seq?: number): Row {
    const raw = typeof text === 'string' ? text : safeString(text);
    // masked before the cut, so that a line cut inside a secret does not keep its first part
    const clean = cutLine(storableString(st.masked.length ? maskSecrets(raw, st.masked) : raw), this.config.maxLineBytes);
    let json: string | null = null;
    if (fields !== undefined && fields !== null) json = this.fieldsJson(fields, st.masked);
    const time = this.now();
    return {
      taskId: st.key.taskId,
      attempt: st.key.attempt,
      seq: seq ?? 0,
      numbering: st.numbering,
      time,
      runId: st.key.runId,
      jobId: st.key.jobId,
      scheduledFor: st.key.scheduledFor.toISOString(),
      // A TaskLog.write from outside this module may pass anything: unknown values fall back.
      level: LEVELS.has(level) ? level : 'info',
      stream: STREAMS.has(stream) ? stream : 'log',
      text: clean,
      fields: json,
      bytes: Buffer.byteLength(clean, 'utf8') + (json ? Buffer.byteLength(json, 'utf8') : 0),
    };
  }

  /**
   * The fields as storable JSON text, at most maxLineBytes. Fast path: one JSON.stringify,
   * whose text shows U+0000 and lone surrogates as `\u0000` / `\udXXX` escapes; only when
   * one appears (or stringify throws) is the value walked and sanitised (worker/output.ts).
   */
  private fieldsJson(fields: JsonObject, masked: readonly string[]): string {
    let json: string | undefined;
    try {
      fields = withErrorsReadable(fields); // reads every top-level value: a getter may throw
      json = JSON.stringify(fields); // throws on a bigint or a cycle: the slow path handles both
    } catch {
      json = undefined;
    }
    if (json === undefined || UNSTORABLE_JSON.test(json)) {
      const plain = jsonSafe(fields);
      // what JSON cannot hold (a cycle, a throwing getter, a Proxy) is said in an object, as fields always are
      json = JSON.stringify(sanitizeJson(plain && typeof plain === 'object' ? plain : { fieldsUnserialisable: String(plain) }).value);
    }
    json = maskSecretsInJson(json, masked);
    const bytes = json.length * 3 > this.config.maxLineBytes ? Buffer.byteLength(json, 'utf8') : json.length;
    return bytes > this.config.maxLineBytes ? JSON.stringify({ fieldsTruncated: true, bytes }) : json;
  }

  private lastMs = NaN;
  private lastIso = '';
  /** The clock as ISO text, formatted once per millisecond (many lines share one). */
  private now(): string {
    const ms = this.deps.clock().getTime();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** True when `row` would take the attempt past its line or byte limit. */
  private overLimits(st: AttemptState, row: Row): boolean {
    return st.lines + 1 > this.config.maxLines || st.bytes + row.bytes > this.config.maxBytes;
  }

  /**
   * Applies the per-attempt limits and the buffer cap; numbers the row when admitted. Once a line did not
   * fit the limits, no later one is admitted either: a shorter line after a dropped long one would read
   * as if it had followed the last stored line.
   */
  private admit(st: AttemptState, row: Row): boolean {
    if (st.full || this.overLimits(st, row)) {
      st.full = true;
      st.droppedLines++;
      st.droppedBytes += row.bytes;
      return false;
    }
    if (this.buffer.length >= this.config.maxBufferedLines) {
      st.droppedBacklog++;
      st.droppedBytes += row.bytes;
      return false;
    }
    st.lines++;
    st.bytes += row.bytes;
    row.seq = ++st.seq;
    return true;
  }

  private lastBehindWarning = 0;

  private push(row: Row): void {
    this.buffer.push(row);
    if (this.buffer.length >= BEHIND_LINES && Date.now() - this.lastBehindWarning > 60_000) {
      // Handlers write faster than the database stores: lines wait in memory, and a crash now
      // loses more than one flush interval. Say so (once a minute) rather than slow the queue.
      this.lastBehindWarning = Date.now();
      this.deps.logger.warn({ waiting: this.buffer.length, max: this.config.maxBufferedLines }, 'task log lines are written faster than the database stores them');
    }
    if (this.buffer.length >= this.config.batchLines && !this.inFlight) {
      void this.runFlush();
    } else {
      this.schedule(this.config.flushMs);
    }
  }

  private close(id: string, st: AttemptState, ending?: { level: TaskLogLevel; text: string }): void {
    if (st.closed) return;
    st.closed = true;
    this.attempts.delete(id);
    if (st.lateProgress) {
      // past the limits, like the marker below: the attempt's last progress, never dropped
      st.lateProgress.seq = ++st.seq;
      this.buffer.push(st.lateProgress);
      st.lateProgress = undefined;
    }
    if (ending) {
      // how the attempt ended (its error, timeout or abort): the line an operator looks for first, never dropped
      const row = this.row(st, ending.level, 'system', ending.text, undefined);
      row.seq = ++st.seq;
      this.buffer.push(row);
    }
    const dropped = st.droppedLines + st.droppedBacklog;
    if (dropped > 0) {
      const parts: string[] = [];
      if (st.droppedLines) parts.push(`over the limit of ${this.config.maxLines} lines / ${fmtBytes(this.config.maxBytes)} per attempt`);
      if (st.droppedBacklog) parts.push(`${st.droppedBacklog} while the database could not keep up`);
      const marker = this.row(st, 'warn', 'system', `${dropped} line(s) (${fmtBytes(st.droppedBytes)}) dropped: ${parts.join('; ')}`, {
        droppedLines: dropped,
        droppedBytes: st.droppedBytes,
      });
      // The marker is never dropped itself: it is the one line past the limit.
      marker.seq = ++st.seq;
      this.buffer.push(marker);
    }
    // The attempt is over: send its last lines soon rather than at the next tick.
    this.schedule(Math.min(this.config.flushMs, 20));
  }

  private schedule(ms: number): void {
    if (this.stopped || this.inFlight || this.buffer.length === 0) return;
    if (this.timer) {
      if (ms >= this.config.flushMs) return; // the pending timer is at least as early
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runFlush();
    }, ms);
  }

  private runFlush(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.buffer.length === 0) return Promise.resolve();
    const batch = this.buffer.length > MAX_ROWS_PER_INSERT ? this.buffer.splice(0, MAX_ROWS_PER_INSERT) : this.buffer;
    if (batch === this.buffer) this.buffer = [];
    // Unsent progress rows are now in flight: a new report must become a new row.
    for (const st of this.attempts.values()) st.pendingProgress = undefined;
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = undefined;
      if (this.buffer.length === 0 || this.stopped) return;
      // After a failure back off (up to 5 s); a full batch goes at once; else the usual cadence.
      const delay = this.failures > 0 ? Math.min(5000, this.config.flushMs * 2 ** this.failures) : this.buffer.length >= this.config.batchLines ? 0 : this.config.flushMs;
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.runFlush();
      }, delay);
    });
    return this.inFlight;
  }

  private async send(batch: Row[]): Promise<void> {
    try {
      await this.insert(batch);
      this.failures = 0;
      this.stats.flushes++;
      this.stats.linesWritten += batch.length;
    } catch (err) {
      const code = pgErrorCode(err);
      if (code && VALUE_ERROR_CLASSES.some((c) => code.startsWith(c))) {
        // A value the database refuses: send line by line, lose only what is refused.
        let lost = 0;
        for (const row of batch) {
          try {
            await this.insert([row]);
            this.stats.linesWritten++;
          } catch {
            lost++;
          }
        }
        this.stats.flushes++;
        if (lost) this.deps.logger.warn({ lost, code }, 'task log lines refused by the database were dropped');
        return;
      }
      this.failures++;
      this.stats.failedFlushes++;
      this.deps.logger.warn({ err, lines: batch.length, failures: this.failures }, 'could not store task log lines; keeping them for the next flush');
      // Put the batch back in front, whole. Its lines were admitted and numbered already: cutting it to the
      // buffer cap (lines written while it was in flight may have filled the buffer) would leave a hole in
      // their attempts that no marker counts. The cap bounds admission (admit), so the buffer exceeds it by
      // at most one batch (MAX_ROWS_PER_INSERT lines).
      this.buffer = [...batch, ...this.buffer];
    }
  }

  private async insert(rows: Row[]): Promise<void> {
    const parts: string[] = [];
    const learning = new Map<string, Numbering>();
    for (const r of rows) {
      const { base, openedAt } = r.numbering;
      // an opening whose base is unknown sends its rows' own seq and its instant; the statement adds the base
      const numbering = base === undefined ? `"s":${r.seq},"o":"${openedAt}"` : `"s":${r.seq + base}`;
      if (base === undefined) learning.set(`${r.taskId}:${r.attempt}:${openedAt}`, r.numbering);
      parts.push(
        `{"t":"${r.taskId}","a":${r.attempt},${numbering},"ts":"${r.time}","r":"${r.runId}","sf":"${r.scheduledFor}","j":${JSON.stringify(r.jobId)},` +
          `"l":"${r.level}","st":"${r.stream}","x":${JSON.stringify(r.text)},"f":${r.fields ?? 'null'}}`,
      );
    }
    const result = (await this.deps.pool.query(INSERT_SQL, [`[${parts.join(',')}]`])) as { rows?: { t: string; a: number; o: Date; base: number }[] } | undefined;
    for (const b of result?.rows ?? []) {
      const numbering = learning.get(`${b.t}:${b.a}:${new Date(b.o).toISOString()}`);
      if (numbering) numbering.base = Number(b.base);
    }
  }
}

/**
 * The writer's settings from the environment (README "Configuration", docs/task-logs.md):
 * TICKFLOW_TASK_LOG_FLUSH_MS (200, 10..1000), TICKFLOW_TASK_LOG_MAX_LINES (10000),
 * TICKFLOW_TASK_LOG_MAX_BYTES (2097152), TICKFLOW_TASK_LOG_MAX_LINE_BYTES (8192),
 * TICKFLOW_TASK_LOG_MAX_BUFFERED_LINES (100000).
 * @throws Error naming the variable when a value is not an integer in range
 */
export function taskLogConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TaskLogWriterConfig {
  const d = DEFAULT_TASK_LOG_CONFIG;
  return {
    ...d,
    flushMs: envInt(env, 'TICKFLOW_TASK_LOG_FLUSH_MS', d.flushMs, 10, 1000),
    maxLines: envInt(env, 'TICKFLOW_TASK_LOG_MAX_LINES', d.maxLines, 0, 10_000_000),
    maxBytes: envInt(env, 'TICKFLOW_TASK_LOG_MAX_BYTES', d.maxBytes, 0, 1024 * 1024 * 1024),
    maxLineBytes: envInt(env, 'TICKFLOW_TASK_LOG_MAX_LINE_BYTES', d.maxLineBytes, 64, 1024 * 1024),
    maxBufferedLines: envInt(env, 'TICKFLOW_TASK_LOG_MAX_BUFFERED_LINES', d.maxBufferedLines, 1000, 10_000_000),
  };
}
