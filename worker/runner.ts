/**
 * Runner: executes claimed tasks, one attempt each, and records the outcome
 * through the engine's completeTask / completeTasks (the only way a task leaves
 * `running`; successes of one-step runs go in batches, completion-batcher.ts).
 *
 * Timeouts are enforced by the worker, not by handler courtesy (engine.md
 * case 3): at the deadline the AbortSignal fires AND the attempt is completed
 * as `timeout` at once, freeing the slot. A handler that ignores the signal may
 * still return later; its late result is sent to completeTask, which refuses it
 * (attempt/lease compare-and-set) — we log that and change nothing.
 * Timers use setLongTimeout, so no delay above 2^31-1 ms ever reaches setTimeout.
 *
 * Abort reasons:
 * - `timeout`: completed as timeout at the deadline (retry or dead per policy);
 * - `cancelled`: the run was cancelled (CANCEL channel): the task is already
 *   final in the database, nothing is completed;
 * - `lease_lost`: a heartbeat found the lease taken over (reclaimed, cancelled):
 *   likewise nothing is completed;
 * - `shutdown`: forced stop after the shutdown grace: whatever the handler
 *   then returns or throws is completed normally (usually failed -> retry).
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { completeTask } from '../lib/engine/index.ts';
import { setLongTimeout, type LongTimeout } from '../lib/schedule/long-timeout.ts';
import { pgErrorCode } from '../lib/engine/pg.ts';
import { HandlerError, unwrapResult, type HandlerRegistry, type JsonObject } from './handlers/index.ts';
import { loggerTaskLog } from './handlers/types.ts';
import type { TaskLogWriter } from './task-log-writer.ts';
import { CompletionBatcher } from './completion-batcher.ts';
import { describeError, storableExitCode, storableOutput } from './output.ts';

/** The fields of a claimed task the runner needs (a subset of the engine's ClaimedTask). */
export interface RunnableTask {
  id: string;
  runId: string;
  jobId?: string;
  stepKey?: string;
  handler: string;
  attempt: number;
  timeoutSeconds: number;
  /** from the claim: the run has no other task (a hint for completeTask's one-statement path) */
  onlyTask?: boolean;
  payload?: unknown;
  config?: unknown;
}

export type AbortReason = 'timeout' | 'cancelled' | 'lease_lost' | 'shutdown';

export class AttemptAbortError extends Error {
  constructor(readonly reason: AbortReason, message: string) {
    super(message);
    this.name = reason === 'timeout' ? 'TimeoutError' : 'AbortError';
  }
}

export interface RunnerConfig {
  nodeId: string;
  /** settled completion retries when the database is unreachable */
  completeRetries?: number;
}

export interface RunnerDeps {
  db: PrismaClient;
  handlers: HandlerRegistry;
  clock: () => Date;
  logger: Logger;
  /** called whenever an attempt leaves the runner (its slot is free) */
  onSlotFree?: () => void;
  /** stores handlers' task log lines (task-log-writer.ts); without it they go to the process log */
  taskLogs?: TaskLogWriter;
}

interface Active {
  task: RunnableTask;
  controller: AbortController;
  /** true once the attempt's outcome was decided (completed, timed out, cancelled, lease lost) */
  settled: boolean;
  timer: LongTimeout;
  startedAt: number;
  done: Promise<void>;
  /** the completion sent when the attempt was settled early (timeout); a late result waits for it */
  settledCompletion: Promise<void>;
}

export interface CompletionRecord {
  taskId: string;
  attempt: number;
  outcome: 'success' | 'failed' | 'timeout';
  applied: boolean;
  late: boolean;
}

function asObject(v: unknown): JsonObject {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};
}

export class Runner {
  private readonly active = new Map<string, Active>();
  /** handler promises still running after their attempt was settled (ignored abort) */
  private readonly zombies = new Set<Promise<void>>();
  /** recent completions, for tests and diagnostics (bounded) */
  readonly completions: CompletionRecord[] = [];

  /** successes of one-step runs are recorded in batches (group commit) */
  readonly batcher: CompletionBatcher;

  constructor(
    readonly config: RunnerConfig,
    private readonly deps: RunnerDeps,
  ) {
    this.batcher = new CompletionBatcher(deps);
  }

  /** attempts currently occupying a slot */
  get count(): number {
    return this.active.size;
  }

  /** task ids whose leases must be kept alive */
  activeTaskIds(): string[] {
    return [...this.active.values()].filter((a) => !a.settled).map((a) => a.task.id);
  }

  has(taskId: string): boolean {
    return this.active.has(taskId);
  }

  /** Starts one attempt in the background. */
  start(task: RunnableTask): void {
    const log = this.deps.logger.child({ taskId: task.id, runId: task.runId, attempt: task.attempt, handler: task.handler });
    const controller = new AbortController();
    const timeoutMs = Math.max(1, task.timeoutSeconds * 1000);
    const entry: Active = {
      task,
      controller,
      settled: false,
      timer: { clear() {} },
      startedAt: Date.now(),
      done: Promise.resolve(),
      settledCompletion: Promise.resolve(),
    };
    this.active.set(task.id, entry);

    entry.timer = setLongTimeout(() => {
      if (entry.settled) return;
      entry.settled = true;
      const err = new AttemptAbortError('timeout', `timed out after ${task.timeoutSeconds}s`);
      controller.abort(err);
      log.warn({ timeoutSeconds: task.timeoutSeconds }, 'attempt timed out; completing as timeout');
      this.release(task.id);
      entry.settledCompletion = this.complete(task, { outcome: 'timeout', error: err.message }, false, log);
    }, timeoutMs);

    const handler = this.deps.handlers.get(task.handler);
    const lines = this.deps.taskLogs?.open({ taskId: task.id, runId: task.runId, jobId: task.jobId ?? '', attempt: task.attempt });
    const run = async (): Promise<unknown> => {
      if (!handler) throw new HandlerError(`no handler "${task.handler}" on this worker`, { code: 'unknown_handler' });
      return handler({
        payload: asObject(task.payload),
        config: asObject(task.config),
        attempt: task.attempt,
        taskId: task.id,
        runId: task.runId,
        signal: controller.signal,
        log,
        taskLog: lines?.taskLog ?? loggerTaskLog(log),
        progress: lines?.progress ?? ((done, total, message) => log.info({ progress: { done, total } }, message ?? 'progress')),
        timeoutMs,
      });
    };

    const handled = run().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );

    entry.done = handled.then(async (r) => {
      if (lines) {
        if (!r.ok) lines.taskLog.write?.({ level: 'error', stream: 'system', text: `attempt failed: ${describeError(r.error)}` });
        lines.close();
      }
      const late = entry.settled;
      if (!late) {
        entry.settled = true;
        entry.timer.clear();
        this.release(task.id);
      } else {
        entry.timer.clear();
        // Never let a late result overtake the timeout completion it lost to.
        await entry.settledCompletion;
      }
      if (r.ok) {
        const { output, exitCode } = unwrapResult(r.value);
        const stored = storableOutput(output);
        if (stored.notes.length) log.warn({ notes: stored.notes }, 'task output adjusted before storing');
        await this.complete(task, { outcome: 'success', output: stored.output, exitCode: storableExitCode(exitCode) }, late, log);
      } else {
        const e = r.error;
        const abortReason = controller.signal.aborted ? (controller.signal.reason as AttemptAbortError | undefined) : undefined;
        const described = describeError(e);
        const message =
          abortReason instanceof AttemptAbortError && abortReason.reason === 'shutdown'
            ? `aborted: worker shutting down (${described})`
            : described;
        let output: unknown;
        if (e instanceof HandlerError && e.detail.output !== undefined) {
          const stored = storableOutput(e.detail.output);
          if (stored.notes.length) log.warn({ notes: stored.notes }, 'task output adjusted before storing');
          output = stored.output;
        }
        await this.complete(
          task,
          { outcome: 'failed', error: message, output, exitCode: e instanceof HandlerError ? storableExitCode(e.detail.exitCode) : undefined },
          late,
          log,
        );
      }
    });
    const z = entry.done.catch(() => undefined);
    this.zombies.add(z);
    void z.finally(() => this.zombies.delete(z));
  }

  /** Aborts one attempt that the database no longer gives us (cancel, lease lost). */
  abort(taskId: string, reason: Exclude<AbortReason, 'timeout'>): boolean {
    const entry = this.active.get(taskId);
    if (!entry || entry.settled) return false;
    if (reason !== 'shutdown') {
      entry.settled = true;
      entry.timer.clear();
      this.release(taskId);
    }
    entry.controller.abort(new AttemptAbortError(reason, `attempt aborted: ${reason.replace('_', ' ')}`));
    this.deps.logger.info({ taskId, reason }, 'attempt aborted');
    return true;
  }

  /** Aborts every running attempt (forced shutdown). */
  abortAll(reason: Exclude<AbortReason, 'timeout'>): number {
    let n = 0;
    for (const id of [...this.active.keys()]) if (this.abort(id, reason)) n++;
    return n;
  }

  /**
   * Resolves when no attempt occupies a slot and every completion was sent, or
   * after `timeoutMs` (resolves false). Handlers that ignore their abort are
   * not waited for beyond their settled completion.
   */
  async idle(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.active.size > 0 || this.pendingCompletions > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise((r) => setTimeout(r, Math.min(50, left)));
    }
    return true;
  }

  /** Waits for handler promises that outlived their attempt (late results), up to `timeoutMs`. */
  async drainLate(timeoutMs: number): Promise<void> {
    if (this.zombies.size === 0) return;
    await Promise.race([Promise.allSettled([...this.zombies]), new Promise((r) => setTimeout(r, timeoutMs))]);
  }

  private pendingCompletions = 0;

  private release(taskId: string): void {
    if (this.active.delete(taskId)) this.deps.onSlotFree?.();
  }

  private async complete(
    task: RunnableTask,
    result: { outcome: 'success' | 'failed' | 'timeout'; output?: unknown; error?: string; exitCode?: number; degraded?: boolean },
    late: boolean,
    log: Logger,
  ): Promise<void> {
    this.pendingCompletions++;
    try {
      const tries = Math.max(1, this.config.completeRetries ?? 5);
      for (let i = 1; ; i++) {
        try {
          const input = {
            taskId: task.id,
            attempt: task.attempt,
            nodeId: this.config.nodeId,
            outcome: result.outcome,
            output: result.output,
            error: result.error,
            exitCode: result.exitCode,
            onlyTask: task.onlyTask,
          };
          // Successes that may end their run in one statement share a commit with their
          // neighbours (completion-batcher.ts); the rest take their own transaction.
          const res = result.outcome === 'success' && task.onlyTask !== false
            ? await this.batcher.complete(input)
            : await completeTask(this.deps.db, input, this.deps.clock());
          this.record({ taskId: task.id, attempt: task.attempt, outcome: result.outcome, applied: res.applied, late });
          if (!res.applied) {
            log.warn({ outcome: result.outcome, late }, late ? 'late result refused: the attempt was already settled' : 'completion refused: lease or attempt no longer ours');
          } else {
            log.debug({ outcome: result.outcome }, 'attempt completed');
          }
          return;
        } catch (err) {
          const code = pgErrorCode(err);
          if (code && (code.startsWith('22') || code.startsWith('54')) && !result.degraded) {
            // The database refused the VALUE (not a transient failure): retrying the same
            // completion would fail forever and the reaper would re-run the task in a loop.
            // Record a failed attempt without the output, naming why.
            log.error({ err, code, outcome: result.outcome }, 'the database refused the attempt outcome; recording it as failed without output');
            result = {
              outcome: result.outcome === 'timeout' ? 'timeout' : 'failed',
              error: `could not store the attempt's ${result.outcome === 'success' ? 'output' : 'result'} (SQLSTATE ${code}: ${describeError(err).slice(0, 300)})`,
              degraded: true,
            };
            i--;
            continue;
          }
          if (i >= tries) {
            log.error({ err, outcome: result.outcome }, 'could not record the attempt outcome; the lease will expire and the task be reclaimed');
            return;
          }
          await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** i)));
        }
      }
    } finally {
      this.pendingCompletions--;
    }
  }

  private record(c: CompletionRecord): void {
    this.completions.push(c);
    if (this.completions.length > 1000) this.completions.splice(0, this.completions.length - 1000);
  }
}

