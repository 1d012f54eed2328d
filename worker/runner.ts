/**
 * Runner: executes claimed tasks, one attempt each, and records the outcome
 * through the engine's completeTask / completeTasks (the only way a task leaves
 * `running`; successes of one-step runs go in batches, completion-batcher.ts).
 *
 * Timeouts (docs/engine.md "Timeouts"): at the deadline the AbortSignal fires
 * and the attempt's outcome is fixed as `timeout`, whatever the handler then
 * returns. It is recorded when the handler returns — at once for a handler
 * that honours its signal. A handler that ignores it (builtin.ignore-abort, a
 * call stuck in a syscall) still runs: after OVERDUE_GRACE_MS the task is
 * marked "timed out, still running" (markAttemptOverdue) and keeps everything
 * a running attempt holds — its slot here, its lease (the heartbeat renews it),
 * its resource key and its job's serial turn — until the handler returns or the
 * worker dies. So a timed-out attempt never overlaps the next one of its key or
 * job. (JavaScript cannot kill a running function; isolating handlers in
 * processes would, at a process per attempt.)
 * Timers use setLongTimeout, so no delay above 2^31-1 ms ever reaches setTimeout.
 *
 * Recording an outcome (docs/engine.md "Outages"): a finished attempt whose
 * completion cannot be recorded (database unreachable) is kept and retried —
 * jittered back-off up to 2 s, at once when the database answers again — for
 * as long as this worker holds the lease: the heartbeat keeps renewing it, and
 * only a heartbeat that finds the lease lost (reclaimed, cancelled) ends the
 * retries. The reaper never takes a lease because of an outage (reaper.ts).
 *
 * Abort reasons:
 * - `timeout`: recorded as timeout when the handler returns (retry or dead per policy);
 * - `cancelled`: the run was cancelled (CANCEL channel): the task is already
 *   final in the database, nothing is completed;
 * - `lease_lost`: a heartbeat found the lease taken over (reclaimed, cancelled):
 *   likewise nothing is completed;
 * - `shutdown`: forced stop after the shutdown grace: whatever the handler
 *   then returns or throws is completed normally (usually failed -> retry).
 */
import type { Logger } from 'pino';
import type { EngineDb, PrismaClient } from '../lib/db.ts';
import { completeTask, markAttemptOverdue, releaseHeldResourceKeys, releaseTasks } from '../lib/engine/index.ts';
import type { ClaimedTask, CompleteTaskInput, CompleteTaskResult } from '../lib/engine/types.ts';
import { setLongTimeout, type LongTimeout } from '../lib/schedule/long-timeout.ts';
import { pgErrorCode } from '../lib/engine/pg.ts';
import { outcomeMayBeUnknown } from '../lib/pg-error-code.ts';
import { HandlerError, unwrapResult, type HandlerRegistry, type JsonObject } from './handlers/index.ts';
import { loggerTaskLog } from './handlers/types.ts';
import type { TaskLogWriter } from './task-log-writer.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import { CompletionBatcher } from './completion-batcher.ts';
import { RUN_START_DELAY_MS, RunStarter } from './run-starter.ts';
import { StartMarker } from './start-marker.ts';
import { describeError, storableExitCode, storableOutput } from './output.ts';
import { isDatabaseUnavailable } from '../lib/infra/database-unavailable.ts';
import type { DbHealth } from './db-health.ts';
import { objectOrEmpty } from '../lib/json-object.ts';
import { resolveAttemptSecrets, type AttemptSecrets } from './task-secrets.ts';
import { MissingSecretError } from '../lib/secrets/secret-references.ts';

/** How long a handler may take to return after its abort at the deadline before the task is marked "timed out, still running". */
export const OVERDUE_GRACE_MS = 500;

/** How many tasks whose outcome could not be recorded the runner remembers (Runner.knownTaskIds). */
const ABANDONED_KEPT = 1000;

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
  /** the run's job key, handed to the handler */
  jobKey?: string | null;
  /** the run's nominal slot (tasks.scheduled_for): handed to the handler, and the history partition key of its log lines */
  scheduledFor: Date;
  /** tasks.started_at as the claim set it: its planned start, in the future for a task claimed ahead */
  startedAt?: Date;
  /** tasks.lease_until as the claim set it (epoch by the database clock the claim used: the worker's) */
  leaseUntil?: Date;
  /** the instant lateness is measured from (ClaimedTask.latenessFrom) */
  latenessFrom?: Date | null;
  /** claimed to be held (ClaimedTask.held): its start is recorded once its attempt lasts (recordStart) */
  held?: boolean;
  /** the step's resource key (ClaimedTask.resourceKey): a cancelled attempt holds it until its handler returned (freeHeldKey) */
  resourceKey?: string | null;
}

export type AbortReason = 'timeout' | 'cancelled' | 'lease_lost' | 'shutdown';

/**
 * The system line that ends an attempt's log lines (docs/task-logs.md "Lines Tickflow writes"), in the words of
 * the task's own error where the attempt did not simply succeed: its timeout (whether or not the handler
 * honoured the abort, and how late it returned), a cancel, a lost lease or a shutdown (also when the handler
 * returned a value after it), or the handler's failure. Null for a plain success.
 * @param overMs ms from the attempt's deadline to the handler's return (negative: before it)
 */
function attemptEndingLine(
  entry: { timedOut: boolean; controller: AbortController | null; masked?: readonly string[] },
  r: { ok: true } | { ok: false; error: unknown },
  overMs: number,
  timeoutSeconds: number,
): { level: 'warn' | 'error'; text: string } | null {
  if (entry.timedOut) {
    return { level: 'error', text: `attempt timed out after ${timeoutSeconds}s${overMs >= OVERDUE_GRACE_MS ? ` (the handler ignored its abort and returned ${overMs} ms later)` : ''}` };
  }
  const signal = entry.controller?.signal;
  if (signal?.aborted && signal.reason instanceof AttemptAbortError) return { level: 'warn', text: signal.reason.message };
  return r.ok ? null : { level: 'error', text: `attempt failed: ${describeError(r.error, entry.masked)}` };
}

/** What the runner records of one attempt (Runner.complete). */
interface AttemptResult {
  outcome: 'success' | 'failed' | 'timeout';
  output?: unknown;
  error?: string;
  exitCode?: number;
  retryable?: boolean;
  degraded?: boolean;
}

export class AttemptAbortError extends Error {
  constructor(readonly reason: AbortReason, message: string) {
    super(message);
    this.name = reason === 'timeout' ? 'TimeoutError' : 'AbortError';
  }
}

export interface RunnerConfig {
  nodeId: string;
  /**
   * Most attempts whose handlers run at once (TICKFLOW_CONCURRENCY; default unbounded). Tasks
   * claimed ahead beyond it (worker/claimer.ts prefetch) wait, in order, for a slot to free.
   */
  concurrency?: number;
  /**
   * The lease length (s, TICKFLOW_LEASE_SECONDS): a held task whose lease may have lapsed by this
   * worker's clock (a stalled process) is not started (Runner.leaseMayHaveLapsed). Unset: no check.
   */
  leaseSeconds?: number;
}

export interface RunnerDeps {
  db: PrismaClient;
  /** the hot-path connections: completions (lib/sql-pool.ts; default `db`) */
  hotDb?: EngineDb;
  handlers: HandlerRegistry;
  clock: () => Date;
  logger: Logger;
  /** called whenever a slot frees: an attempt leaves the runner, or a slot offered to a completion for a hand-off comes back unused */
  onSlotFree?: () => void;
  /** called when a recorded completion made tasks ready (CompleteTaskResult.ready) */
  onReady?: () => void;
  /**
   * The claim configuration a DAG step's success offers for a hand-off of the step it makes
   * ready (CompleteTaskInput.handoff), or undefined while this worker takes none (no free slot,
   * claiming stopped)
   */
  handoff?: () => CompleteTaskInput['handoff'];
  /** steps a completion claimed for this worker (CompleteTaskResult.handedOff): start them */
  onHandedOff?: (tasks: ClaimedTask[]) => void;
  /**
   * A completion that offered a hand-off failed with its outcome unknown, or was refused (an
   * earlier try of it may have committed, its answer lost): it may have claimed a step for this
   * worker that the worker never learnt of (worker/claimer.ts assignmentUncertain).
   */
  onHandoffUncertain?: () => void;
  /** an attempt's handler is about to be called, at `at` by the worker's clock (metrics: lateness) */
  onStarted?: (task: RunnableTask, at: Date) => void;
  /** database reachability: completion retries wake when it answers again */
  health?: DbHealth;
  /** called when an attempt's outcome was recorded (metrics); `taskStatus` is what the task became */
  onCompleted?: (e: { handler: string; outcome: 'success' | 'failed' | 'timeout'; durationMs: number; taskStatus?: 'success' | 'pending' | 'dead' }) => void;
  /** stores handlers' task log lines (task-log-writer.ts); without it they go to the process log */
  taskLogs?: TaskLogWriter;
  /** the worker's secrets by name (worker/task-secrets.ts), put in place of the references of a task's settings */
  secrets?: ReadonlyMap<string, string>;
}

interface Active {
  task: RunnableTask;
  /** the attempt's abort, made when the handler first reads its signal or when it is aborted (abortOf) */
  controller: AbortController | null;
  /** true once the attempt's outcome was decided by the handler's return, a cancel or a lost lease */
  settled: boolean;
  /** the deadline passed: the outcome is `timeout`, recorded when the handler returns */
  timedOut: boolean;
  overdueTimer: NodeJS.Timeout | null;
  /** once the attempt has lasted RUN_START_DELAY_MS: marks its one-step run running (run-starter.ts), records a held task's start (start-marker.ts) */
  runStartTimer: NodeJS.Timeout | null;
  /** a task claimed ahead waits for its planned start: the timer that lets it start (then, or when a slot frees) */
  holdTimer: NodeJS.Timeout | null;
  /** its start instant came (or it was due at once) while every slot was running: waiting for one */
  queued: boolean;
  /** its handler was called: it occupies one of the `concurrency` slots */
  begun: boolean;
  /** it did not start when it was claimed (held or queued): its real start goes with its completion */
  delayed: boolean;
  /** it left the runner (release or hand-back): nothing of it is counted any more */
  released: boolean;
  /** the clock when a held task really started (sent with its completion: CompleteTaskInput.startedAt) */
  heldStart?: Date;
  /** the task was claimed again while this entry held it (Runner.supersede): its result is not sent */
  superseded?: boolean;
  /** the secret values its settings were given, masked in its output and error (worker/task-secrets.ts, worker/output.ts) */
  masked?: readonly string[];
  timer: LongTimeout;
  startedAt: number;
  done: Promise<void>;
}

export interface CompletionRecord {
  taskId: string;
  attempt: number;
  outcome: 'success' | 'failed' | 'timeout';
  applied: boolean;
  late: boolean;
}

/** The attempt's AbortController, made on first use. */
function abortOf(entry: Active): AbortController {
  return (entry.controller ??= new AbortController());
}

function asObject(v: unknown): JsonObject {
  return objectOrEmpty(v) as JsonObject;
}

export class Runner {
  private readonly active = new Map<string, Active>();
  /** releaseHeldResourceKeys calls in flight (freeHeldKey), awaited by heldKeysFreed */
  private readonly keyFrees = new Set<Promise<void>>();
  /** handler promises still running after their attempt was settled (ignored abort) */
  private readonly zombies = new Set<Promise<void>>();
  /** recent completions (the last 1,000 at least), for tests and diagnostics (bounded) */
  readonly completions: CompletionRecord[] = [];

  /** when each attempt started (ms), for the duration its outcome reports */
  private readonly startTimes = new WeakMap<RunnableTask, number>();

  /** successes of one-step runs are recorded in batches (group commit) */
  readonly batcher: CompletionBatcher;

  /** marks one-step runs running whose attempt lasts (run-starter.ts) */
  private readonly runStarter: RunStarter;

  /** records the start of tasks claimed held whose attempt lasts (start-marker.ts) */
  private readonly startMarker: StartMarker;

  constructor(
    readonly config: RunnerConfig,
    private readonly deps: RunnerDeps,
  ) {
    this.batcher = new CompletionBatcher({ db: deps.hotDb ?? deps.db, clock: deps.clock, logger: deps.logger });
    this.runStarter = new RunStarter({ db: deps.hotDb ?? deps.db, clock: deps.clock, logger: deps.logger });
    this.startMarker = new StartMarker({ db: deps.hotDb ?? deps.db, nodeId: () => this.config.nodeId, clock: deps.clock, logger: deps.logger });
  }

  /** tasks this worker holds: attempts running, and tasks claimed but not started yet (held until their start, or queued for a slot) */
  get count(): number {
    return this.active.size;
  }

  /** attempts whose handler has been called and not returned: at most `concurrency` */
  get running(): number {
    return this.begun;
  }

  /**
   * The attempts whose handler has been called and not returned (task id, run id, attempt, handler): what a
   * crash of the worker process ends, named in its last log line (worker/index.ts).
   */
  runningAttempts(): { taskId: string; runId: string; attempt: number; handler: string }[] {
    return [...this.active.values()].filter((a) => a.begun && !a.released).map((a) => ({ taskId: a.task.id, runId: a.task.runId, attempt: a.task.attempt, handler: a.task.handler }));
  }

  private begun = 0;
  /** tasks whose start came while every slot was running, oldest first */
  private readonly waiting: Active[] = [];

  /**
   * Slots promised to steps that completions in flight may hand back (CompleteTaskInput.handoff):
   * one per offer until its result is in, so a claim meanwhile does not fill them too
   * (worker/claimer.ts counts them as taken).
   */
  get reserved(): number {
    return this.handoffsOffered;
  }

  private handoffsOffered = 0;

  /**
   * Task ids whose leases must be kept alive: attempts still running (timed-out ones
   * included: they still hold the task) and finished attempts whose outcome is not
   * recorded yet.
   */
  activeTaskIds(): string[] {
    const ids = [...this.active.values()].filter((a) => !a.settled).map((a) => a.task.id);
    for (const id of this.recording.keys()) if (!ids.includes(id)) ids.push(id);
    return ids;
  }

  /**
   * What this runner holds of `taskId` now, as an identity (its unsettled entry, or its outcome
   * being recorded), so the heartbeat can tell the claim it renewed from a later claim of the same
   * task (a retry claimed while the renewal was in flight) and abort only the former.
   */
  holding(taskId: string): object | undefined {
    const entry = this.active.get(taskId);
    if (entry && !entry.settled) return entry;
    return this.recording.get(taskId);
  }

  /** When this worker's leases were last renewed, as the instant they then run to (epoch ms, its clock). */
  private leasesKnownUntil = 0;

  /** The heartbeat renewed every lease this runner holds, up to `untilMs` (epoch ms, the worker's clock). */
  leasesRenewed(untilMs: number): void {
    this.leasesKnownUntil = Math.max(this.leasesKnownUntil, untilMs);
  }

  /**
   * The earliest instant (epoch ms, this worker's clock) at which the lease of an attempt this
   * runner still holds runs out, by its claim or the last renewal, whichever is later;
   * undefined when it holds none. A reaper cannot hand any of them to another worker before it.
   */
  earliestLeaseEnd(): number | undefined {
    let earliest: number | undefined;
    for (const entry of this.active.values()) {
      const end = Math.max(entry.task.leaseUntil?.getTime() ?? 0, this.leasesKnownUntil);
      if (earliest === undefined || end < earliest) earliest = end;
    }
    return earliest;
  }

  /**
   * ms until the lease of `task` runs out by this worker's clock, by its claim or the last renewal,
   * whichever is later (negative once it has); Infinity without RunnerConfig.leaseSeconds.
   * -Infinity once `entry`'s attempt was aborted because the task is no longer this worker's (its
   * run cancelled, a heartbeat or the start marker found the lease taken over, a newer claim of it
   * here): the renewal time says nothing of a lease that is gone, and a handler that checks this
   * before a step it cannot undo (docs/handlers.md, the sql executor's COMMIT) must not go ahead.
   */
  private leaseRemainingMs(task: RunnableTask, entry?: Active): number {
    const reason = entry?.controller?.signal.aborted ? (entry.controller.signal.reason as unknown) : undefined;
    if (reason instanceof AttemptAbortError && (reason.reason === 'cancelled' || reason.reason === 'lease_lost')) return -Infinity;
    if (this.config.leaseSeconds === undefined) return Infinity;
    return Math.max(task.leaseUntil?.getTime() ?? 0, this.leasesKnownUntil) - this.deps.clock().getTime();
  }

  /** True when neither the claim's lease nor the last renewal covers the task now (RunnerConfig.leaseSeconds). */
  private leaseMayHaveLapsed(task: RunnableTask): boolean {
    return this.leaseRemainingMs(task) <= 0;
  }

  /**
   * Tasks whose attempt was aborted (cancelled, lease lost) while its handler still runs, and which
   * have a resource key: a cancel leaves the key held by this worker until the handler returns
   * (lib/engine/held-resource-keys.ts), and the heartbeat renews that hold with the leases.
   */
  keyHoldingTaskIds(): string[] {
    return [...this.active.values()].filter((a) => a.settled && a.begun && !a.released && a.task.resourceKey).map((a) => a.task.id);
  }

  /**
   * The aborted attempt of `task` no longer runs here: free the resource key a cancel left it
   * holding (a no-op for a key not held by this node: reclaimed, expired, or not cancelled). On
   * failure the reaper frees it once its hold's lease end has passed.
   */
  private freeHeldKey(task: RunnableTask): void {
    if (!task.resourceKey) return;
    const freeing: Promise<void> = releaseHeldResourceKeys(this.deps.hotDb ?? this.deps.db, { nodeId: this.config.nodeId, taskIds: [task.id] }).then(
      (keys) => { if (keys.length) this.deps.logger.info({ taskId: task.id, resourceKeys: keys }, 'cancelled attempt stopped: resource key freed'); },
      (err: unknown) => this.deps.logger.warn({ taskId: task.id, err: (err as Error)?.message }, 'could not free the resource key of a cancelled attempt; the reaper frees it when its hold lapses'),
    ).finally(() => this.keyFrees.delete(freeing));
    this.keyFrees.add(freeing);
  }

  /**
   * Resolves when every freeHeldKey in flight has ended, or after `timeoutMs` (a database that does
   * not answer must not hold up a stop): a worker that stops waits for them before it closes its
   * pools, or a key freed just before the stop would be left held until the reaper expires the hold
   * (its lease end, up to a lease later).
   */
  async heldKeysFreed(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); });
    const settled = (async () => { while (this.keyFrees.size > 0) await Promise.allSettled([...this.keyFrees]); })();
    await Promise.race([settled, gaveUp]);
    clearTimeout(timer);
  }

  /** Of activeTaskIds, those whose handler has been called (the heartbeat marks held ones started). */
  startedTaskIds(): string[] {
    const ids = [...this.active.values()].filter((a) => a.begun && !a.settled).map((a) => a.task.id);
    for (const id of this.recording.keys()) if (!ids.includes(id)) ids.push(id);
    return ids;
  }

  has(taskId: string): boolean {
    return this.active.has(taskId);
  }

  /**
   * Every task the database may rightly show as running under this worker: activeTaskIds, and
   * the tasks whose handler ran but whose outcome this worker gave up recording (their lease
   * expires and the reaper fails the attempt: they must not be handed back as never started).
   * Read by the claimer's reconcile (worker/claimer.ts): a running task of this node outside
   * this list was assigned by a statement whose answer was lost.
   */
  knownTaskIds(): string[] {
    const ids = this.activeTaskIds();
    for (const id of this.abandoned) if (!ids.includes(id)) ids.push(id);
    return ids;
  }

  /** tasks whose outcome could not be recorded while their lease was still ours (the last ABANDONED_KEPT) */
  private readonly abandoned = new Set<string>();

  /**
   * Takes a claimed task and starts its attempt in the background: now when a slot is free,
   * else as soon as one frees (a prefetched task: docs/on-time.md "Prefetch"). A task claimed
   * ahead of its slot (its claim's started_at still in the future by the worker's clock:
   * ClaimInput.aheadMs) counts as held from now and starts at that instant, or when a slot frees
   * after it (docs/on-time.md "Claiming ahead").
   */
  start(task: RunnableTask): void {
    const entry: Active = {
      task,
      controller: null,
      settled: false,
      timedOut: false,
      overdueTimer: null,
      runStartTimer: null,
      holdTimer: null,
      queued: false,
      begun: false,
      delayed: false,
      released: false,
      timer: { clear() {} },
      startedAt: Date.now(),
      done: Promise.resolve(),
    };
    this.supersede(task.id);
    this.active.set(task.id, entry);
    if (task.startedAt && task.startedAt.getTime() > this.deps.clock().getTime()) {
      entry.delayed = true;
      this.hold(entry, task.startedAt.getTime(), 0);
      return;
    }
    this.admit(entry);
  }

  /**
   * Starts `entry` now when a slot is free, else queues it for the next slot to free (a task
   * claimed ahead beyond the free slots: worker/claimer.ts prefetch). The concurrency ceiling
   * is kept here, whoever claimed the task.
   */
  private admit(entry: Active): void {
    if (this.begun < (this.config.concurrency ?? Infinity)) {
      this.begin(entry);
      return;
    }
    if (this.handingBack) {
      // Stopping: what cannot start now goes back to the database for another worker.
      this.handBack(entry);
      return;
    }
    entry.queued = true;
    entry.delayed = true;
    this.waiting.push(entry);
  }

  /**
   * Starts `entry` at `at` (epoch ms by the worker's clock). A Node timer may fire a millisecond
   * early, so a wake before `at` waits again for the rest (a few times at most: a stopped test
   * clock must not hold the task forever).
   */
  private hold(entry: Active, at: number, rearms: number): void {
    entry.holdTimer = setTimeout(() => {
      entry.holdTimer = null;
      const now = this.deps.clock();
      if (now.getTime() < at && rearms < 3) {
        this.hold(entry, at, rearms + 1);
        return;
      }
      this.admit(entry);
    }, Math.max(0, at - this.deps.clock().getTime()));
  }

  /** Runs the attempt of `entry` now: its timeout, the handler, then the recording of its outcome. */
  private begin(entry: Active): void {
    const task = entry.task;
    if (task.held && this.leaseMayHaveLapsed(task)) {
      // Stalled past its lease (the process was frozen, its heartbeat silent): the reaper may have
      // handed the task back and another worker started it on this same attempt. Not started
      // here; the lease, no longer renewed, decides (the reaper hands it back if it lapsed).
      this.deps.logger.warn({ taskId: task.id, attempt: task.attempt }, 'held task not started: its lease may have lapsed while this worker was stalled');
      entry.settled = true;
      this.unhold(entry);
      this.release(entry);
      const next = this.begun < (this.config.concurrency ?? Infinity) ? this.waiting.shift() : undefined;
      if (next) {
        next.queued = false;
        this.begin(next);
      }
      return;
    }
    const log = lazyChildLogger(this.deps.logger, { taskId: task.id, runId: task.runId, attempt: task.attempt, handler: task.handler });
    entry.begun = true;
    this.begun++;
    if (entry.delayed || task.held) entry.heldStart = this.deps.clock();
    entry.startedAt = Date.now();
    this.startTimes.set(task, entry.startedAt);
    const timeoutMs = Math.max(1, task.timeoutSeconds * 1000);
    this.deps.onStarted?.(task, entry.heldStart ?? this.deps.clock());
    if (task.onlyTask || task.held) {
      // What an attempt that lasts records, once, RUN_START_DELAY_MS after its start (none of it
      // for the many that end sooner, whose completion says it all): the one-step run the claim
      // left pending is marked running (run-starter.ts), and a task claimed held gets its start
      // recorded (start-marker.ts).
      entry.runStartTimer = setTimeout(() => {
        entry.runStartTimer = null;
        if (entry.settled) return;
        if (task.onlyTask) this.runStarter.add({ runId: task.runId, scheduledFor: task.scheduledFor, startedAt: entry.heldStart ?? task.startedAt ?? new Date(entry.startedAt) });
        if (task.held) this.recordStart(entry);
      }, RUN_START_DELAY_MS);
    }

    entry.timer = setLongTimeout(() => {
      if (entry.settled) return;
      entry.timedOut = true;
      abortOf(entry).abort(new AttemptAbortError('timeout', `timed out after ${task.timeoutSeconds}s`));
      log.warn({ timeoutSeconds: task.timeoutSeconds }, 'attempt timed out; aborted, recording it as timeout when the handler returns');
      entry.overdueTimer = setTimeout(() => {
        entry.overdueTimer = null;
        if (entry.settled) return;
        log.warn({ timeoutSeconds: task.timeoutSeconds }, 'handler ignores its abort: timed out, still running (slot, lease, resource key and serial turn stay held)');
        void markAttemptOverdue(this.deps.db, { taskId: task.id, attempt: task.attempt, nodeId: this.config.nodeId, timeoutSeconds: task.timeoutSeconds }, this.deps.clock())
          .catch((err) => log.warn({ err }, 'could not mark the attempt timed out, still running'));
      }, OVERDUE_GRACE_MS);
    }, timeoutMs);

    const handler = this.deps.handlers.get(task.handler);
    const secrets = this.attemptSecrets(task);
    const masked = 'error' in secrets ? [] : secrets.masked;
    entry.masked = masked;
    const lines = this.deps.taskLogs?.open({ taskId: task.id, runId: task.runId, jobId: task.jobId ?? '', attempt: task.attempt, scheduledFor: task.scheduledFor }, masked);
    const run = async (): Promise<unknown> => {
      if (!handler) throw new HandlerError(`no handler "${task.handler}" on this worker`, { code: 'unknown_handler' });
      if ('error' in secrets) throw secrets.error;
      return handler({
        payload: asObject(secrets.payload),
        config: asObject(secrets.config),
        attempt: task.attempt,
        taskId: task.id,
        runId: task.runId,
        jobKey: task.jobKey ?? null,
        scheduledFor: task.scheduledFor,
        // most handlers never read it: an AbortController per attempt costs more than a no-op task
        get signal() {
          return abortOf(entry).signal;
        },
        log,
        taskLog: lines?.taskLog ?? loggerTaskLog(log),
        progress: lines?.progress ?? ((done, total, message) => log.info({ progress: { done, total } }, message ?? 'progress')),
        timeoutMs,
        leaseRemainingMs: () => this.leaseRemainingMs(task, entry),
      });
    };

    const handled = run().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );

    entry.done = handled.then(async (r) => {
      if (lines) {
        // written past the attempt's line limits, like the dropped-lines marker (task-log-writer.ts close)
        lines.close(attemptEndingLine(entry, r, Date.now() - entry.startedAt - timeoutMs, task.timeoutSeconds) ?? undefined);
      }
      const late = entry.settled; // cancelled or lease lost meanwhile: the result will be refused
      entry.settled = true;
      entry.timer.clear();
      if (entry.overdueTimer) clearTimeout(entry.overdueTimer);
      if (entry.runStartTimer) clearTimeout(entry.runStartTimer);
      this.release(entry);
      if (late) this.freeHeldKey(task);
      // claimed again on the same attempt after the reaper handed it back (supersede): this run's
      // result is not the new claim's, and the same keys would let it be recorded as that one
      if (entry.superseded) return;
      if (entry.timedOut && !late) {
        const overMs = Date.now() - entry.startedAt - timeoutMs;
        await this.complete(task, {
          outcome: 'timeout',
          error: `timed out after ${task.timeoutSeconds}s${overMs >= OVERDUE_GRACE_MS ? ` (the handler ignored its abort and returned ${overMs} ms later)` : ''}`,
        }, false, log, entry.heldStart);
        return;
      }
      let result: AttemptResult;
      try {
        result = this.attemptResult(r, entry, log);
      } catch (err) {
        // a value whose reading throws (a Proxy's traps, a throwing getter): left uncaught here, the
        // attempt would never be recorded and would wait for the reaper to call it a lost lease
        result = { outcome: 'failed', error: `the handler's ${r.ok ? 'result' : 'error'} cannot be read: ${describeError(err)}` };
      }
      await this.complete(task, result, late, log, entry.heldStart);
    });
    const z = entry.done.catch(() => undefined);
    this.zombies.add(z);
    void z.finally(() => this.zombies.delete(z));
  }

  /**
   * The task's config and payload with their secret references resolved against this worker's secrets
   * (worker/task-secrets.ts), or the error the attempt fails with: a secret this worker does not hold
   * (another worker may: the attempt may be retried), or settings that cannot be read.
   */
  private attemptSecrets(task: RunnableTask): AttemptSecrets | { error: HandlerError } {
    try {
      return resolveAttemptSecrets(task.config, task.payload, this.deps.secrets ?? new Map());
    } catch (e) {
      if (e instanceof MissingSecretError) {
        return { error: new HandlerError(`${e.message} (${this.config.nodeId}): set TICKFLOW_SECRET_${e.names[0]} or a file ${e.names[0]} in TICKFLOW_SECRETS_DIR on the workers that run it`, { code: 'secret_missing' }) };
      }
      return { error: new HandlerError(`the task's settings cannot be read: ${describeError(e)}`, { code: 'input', retryable: false }) };
    }
  }

  /**
   * The outcome to record for what the handler of `entry` settled with: its result made storable, or its
   * error described. May throw on a hostile value (a Proxy whose traps throw); the caller records that.
   */
  private attemptResult(r: { ok: true; value: unknown } | { ok: false; error: unknown }, entry: Active, log: Logger): AttemptResult {
    if (r.ok) {
      const { output, exitCode } = unwrapResult(r.value);
      const stored = storableOutput(output, undefined, entry.masked);
      // stored as a marker string it would read as a success with an output nobody returned
      if (stored.unserialisable !== undefined) return { outcome: 'failed', error: `the handler's result is not JSON: ${stored.unserialisable}` };
      if (stored.notes.length) log.warn({ notes: stored.notes }, 'task output adjusted before storing');
      return { outcome: 'success', output: stored.output, exitCode: storableExitCode(exitCode) };
    }
    const e = r.error;
    const signal = entry.controller?.signal;
    const abortReason = signal?.aborted ? (signal.reason as AttemptAbortError | undefined) : undefined;
    // the attempt's secret values masked before the message is cut to its cap (worker/output.ts)
    const described = describeError(e, entry.masked);
    // the task keeps the message (and its causes); where it was thrown is for whoever reads the worker's log
    if (!signal?.aborted && e instanceof Error) {
      try {
        // the worker's own log is shipped off the host as often as not: a secret's value stays out of it too
        if (entry.masked?.length) log.warn({ error: described }, 'attempt failed: the handler threw');
        else log.warn({ err: e }, 'attempt failed: the handler threw');
      } catch {
        /* an Error whose properties throw when the logger reads them: the task has its message */
      }
    }
    const message = abortReason instanceof AttemptAbortError && abortReason.reason === 'shutdown' ? `aborted: worker shutting down (${described})` : described;
    let output: unknown;
    if (e instanceof HandlerError && e.detail.output !== undefined) {
      const stored = storableOutput(e.detail.output, undefined, entry.masked);
      if (stored.notes.length) log.warn({ notes: stored.notes }, 'task output adjusted before storing');
      output = stored.output;
    }
    return {
      outcome: 'failed',
      error: message,
      output,
      exitCode: e instanceof HandlerError ? storableExitCode(e.detail.exitCode) : undefined,
      retryable: e instanceof HandlerError && e.detail.retryable === false ? false : undefined,
    };
  }

  /**
   * Records the real start of a task claimed held (ClaimedTask.held; start-marker.ts) whose
   * attempt has lasted RUN_START_DELAY_MS, so that from then on the reaper fails the attempt if
   * this worker dies instead of handing the task back unstarted. Neither awaited before the
   * handler nor written for attempts that end sooner: a burst of held tasks at one slot would
   * otherwise start a round trip late each, and load the database at its busiest instant
   * (measured: on-time p99 207 → 315 ms, bench/on-time.ts 1000 60). A worker killed within that
   * delay of a held task's start therefore has the task handed back and run again on the same
   * attempt (at least once, the partial run not counted). A task found no longer ours
   * (reclaimed, cancelled) is aborted like a lost lease, unless a newer claim of it has replaced
   * this entry meanwhile (supersede); a start that could not be recorded is recorded by the next
   * heartbeat (startedTaskIds).
   */
  private recordStart(entry: Active): void {
    const task = entry.task;
    void this.startMarker.mark(task, entry.heldStart ?? this.deps.clock()).then((mark) => {
      if (mark === 'lost' && this.active.get(task.id) === entry && this.abort(task.id, 'lease_lost')) {
        this.deps.logger.warn({ taskId: task.id, attempt: task.attempt }, 'held task no longer ours at its start (reclaimed or cancelled meanwhile): attempt aborted');
      }
    });
  }

  /**
   * Drops what this runner still holds of `taskId` before a new claim of it takes its place. The
   * reaper hands a dead-looking worker's held task back on the same attempt, so a worker that was
   * only stalled past its lease can claim the same (task, attempt) again while its old entry still
   * waits or runs: that entry is aborted as lost, and its result is never sent (completions and the
   * start marker match on the task, the attempt and the node, which the new claim shares).
   */
  private supersede(taskId: string): void {
    const old = this.active.get(taskId);
    if (!old || old.released) return;
    old.superseded = true;
    // a waiting entry leaves now; a running one keeps its slot until its handler returns (release)
    this.abort(taskId, 'lease_lost');
    this.deps.logger.warn({ taskId, attempt: old.task.attempt }, 'task claimed again while an earlier claim of it was still held here: the earlier one is dropped');
  }

  /** Aborts one attempt that the database no longer gives us (cancel, lease lost). */
  abort(taskId: string, reason: Exclude<AbortReason, 'timeout'>): boolean {
    const rec = this.recording.get(taskId);
    if (rec && reason !== 'shutdown') {
      // The attempt finished but its outcome is not recorded yet: the database says the lease is
      // no longer ours, so a record would be refused anyway. Stop retrying it.
      rec.lost = true;
      rec.wake();
    }
    const entry = this.active.get(taskId);
    if (!entry || entry.settled) return false;
    if (!entry.begun) {
      // Claimed and not started yet (held until its start, or waiting for a slot): nothing runs.
      // A forced stop hands it back unstarted; a cancel or a lost lease leaves nothing to record.
      if (reason === 'shutdown') {
        this.handBack(entry);
        return true;
      }
      this.unhold(entry);
      this.release(entry);
      this.freeHeldKey(entry.task);
      this.deps.logger.info({ taskId, reason }, 'attempt aborted before its planned start');
      return true;
    }
    if (reason !== 'shutdown') {
      // The outcome is decided (its record would be refused), but the slot stays taken until
      // the handler returns: a handler that ignores its abort still runs here.
      entry.settled = true;
      entry.timer.clear();
    }
    abortOf(entry).abort(new AttemptAbortError(reason, `attempt aborted: ${reason.replace('_', ' ')}`));
    this.deps.logger.info({ taskId, reason }, 'attempt aborted');
    return true;
  }

  /**
   * The worker is stopping (docs/on-time.md "Prefetch"): every task waiting for a slot is handed
   * back to the database now (releaseTasks: pending again, same attempt, another worker takes
   * it), and from now on a task whose start comes without a free slot is handed back too. A
   * held task whose start comes while a slot is free still starts, within the grace period.
   */
  handBackUnstarted(): void {
    this.handingBack = true;
    for (const entry of [...this.waiting]) this.handBack(entry);
  }

  /**
   * Hands back every task not started yet — held until its start or waiting for a slot — and
   * resolves when the hand-back statements are done, or after `timeoutMs` (a process about to
   * exit on a second signal: docs/on-time.md "Stopping").
   */
  async handBackAll(timeoutMs: number): Promise<void> {
    this.handingBack = true;
    for (const entry of [...this.active.values()]) if (!entry.begun && !entry.settled) this.handBack(entry);
    const deadline = Date.now() + timeoutMs;
    // setImmediate sends the batch; wait for its answer (counted in pendingCompletions).
    await new Promise((r) => setImmediate(r));
    while (this.handBacksInFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  private handBacksInFlight = 0;
  private handingBack = false;
  /** tasks to hand back in the next statement (one per turn of the event loop) */
  private handBackBatch: Active[] = [];

  /** Takes a task that never started out of the runner and hands it back (batched: releaseTasks). */
  private handBack(entry: Active): void {
    this.unhold(entry);
    this.forget(entry);
    this.handBackBatch.push(entry);
    if (this.handBackBatch.length > 1) return;
    this.pendingCompletions++;
    this.handBacksInFlight++;
    setImmediate(() => {
      const batch = this.handBackBatch;
      this.handBackBatch = [];
      const tasks = batch.map((e) => ({ id: e.task.id, attempt: e.task.attempt, scheduledFor: e.task.scheduledFor }));
      releaseTasks(this.deps.hotDb ?? this.deps.db, { nodeId: this.config.nodeId, tasks, reason: 'the worker is stopping' }, this.deps.clock())
        .then((n) => this.deps.logger.info({ tasks: tasks.length, handedBack: n }, 'tasks claimed but not started handed back'))
        .catch((err) => this.deps.logger.warn({ err, tasks: tasks.length }, 'could not hand back tasks claimed but not started; their leases expire and the reaper reclaims them'))
        .finally(() => {
          this.pendingCompletions--;
          this.handBacksInFlight--;
        });
    });
  }

  /** Ends the wait of a task that has not started: its hold timer or its place in the queue. */
  private unhold(entry: Active): void {
    if (entry.holdTimer) clearTimeout(entry.holdTimer);
    entry.holdTimer = null;
    if (entry.queued) this.waiting.splice(this.waiting.indexOf(entry), 1);
    entry.queued = false;
    entry.settled = true;
  }

  /** Aborts every running attempt (forced shutdown). */
  abortAll(reason: Exclude<AbortReason, 'timeout'>): number {
    let n = 0;
    for (const id of [...this.active.keys()]) if (this.abort(id, reason)) n++;
    return n;
  }

  /**
   * Resolves when no attempt occupies a slot and every completion was sent, or
   * after `timeoutMs` (resolves false). A handler that ignores its abort keeps
   * its slot, so it is waited for too (up to `timeoutMs`).
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

  /**
   * `entry` leaves the runner: its slot, if it had begun, goes to the task that has waited
   * longest for one. By identity, once: a task id may come back as a new attempt while an
   * aborted attempt's handler still runs (ignoring its abort), and each must free its own slot.
   */
  private release(entry: Active): void {
    if (entry.released) return;
    this.forget(entry);
    if (entry.begun) {
      this.begun--;
      const next = this.waiting.shift();
      if (next) {
        next.queued = false;
        try {
          this.begin(next);
        } catch (err) {
          // The attempt that just ended must still be recorded by the caller.
          this.deps.logger.error({ err, taskId: next.task.id }, 'could not start a task waiting for a slot');
        }
      }
    }
    this.deps.onSlotFree?.();
  }

  /** Marks `entry` gone and drops it from the map when it is still the entry of its task id. */
  private forget(entry: Active): void {
    entry.released = true;
    if (this.active.get(entry.task.id) === entry) this.active.delete(entry.task.id);
  }

  /** attempts whose outcome is being recorded: renewed by the heartbeat until recorded or lost */
  private readonly recording = new Map<string, { lost: boolean; wake: () => void }>();
  private stopped = false;

  /** Ends every pending completion retry (worker stopped or killed): their leases will expire. */
  stopRecording(): void {
    this.stopped = true;
    for (const rec of this.recording.values()) rec.wake();
  }

  /** The database answers again: retry pending completions now. */
  retryRecordingNow(): void {
    for (const rec of this.recording.values()) rec.wake();
  }

  private async complete(
    task: RunnableTask,
    result: AttemptResult,
    late: boolean,
    log: Logger,
    startedAt?: Date,
  ): Promise<void> {
    this.pendingCompletions++;
    let wakeUp: () => void = () => undefined;
    const rec = { lost: false, wake: () => wakeUp() };
    if (!late) this.recording.set(task.id, rec);
    try {
      let otherFailures = 0;
      for (let i = 1; ; i++) {
        // A success offers to take the step it makes ready while this worker has a slot for it;
        // the slot stays reserved until the answer is in (the step then holds it, or not).
        const offer = result.outcome === 'success' && task.onlyTask === false && !late ? this.deps.handoff?.() : undefined;
        if (offer) this.handoffsOffered++;
        try {
          const input: CompleteTaskInput = {
            taskId: task.id,
            attempt: task.attempt,
            nodeId: this.config.nodeId,
            outcome: result.outcome,
            output: result.output,
            error: result.error,
            exitCode: result.exitCode,
            retryable: result.retryable,
            onlyTask: task.onlyTask,
            runId: task.runId,
            jobId: task.jobId,
            scheduledFor: task.scheduledFor,
            ...(startedAt ? { startedAt } : {}),
            ...(offer ? { handoff: offer } : {}),
          };
          // Successes share a commit with their neighbours (completion-batcher.ts: one statement for
          // one-step runs, one for DAG steps and, when a run may have ended, a transaction after
          // it); failures take their own transaction.
          let res: CompleteTaskResult;
          try {
            res = result.outcome === 'success'
              ? await this.batcher.complete(input)
              : await completeTask(this.deps.hotDb ?? this.deps.db, input, this.deps.clock());
            // Steps this completion claimed for us (a chain's next step): ours now, start them.
            if (res.handedOff?.length) this.deps.onHandedOff?.(res.handedOff);
          } catch (err) {
            if (offer && outcomeMayBeUnknown(err)) this.deps.onHandoffUncertain?.();
            throw err;
          } finally {
            if (offer) {
              this.handoffsOffered--;
              // The slot the offer held is free again unless a step handed off took it (started
              // above): the claim must hear of it, as of any slot that frees, or a worker whose
              // slots were all offered sleeps until its safety poll with ready work waiting.
              this.deps.onSlotFree?.();
            }
          }
          // Refused although it offered a hand-off: an earlier try of this completion may have
          // committed, with a step claimed for us, and its answer lost (or a batch failed as a
          // whole and its completions were made one by one).
          if (offer && !res.applied) this.deps.onHandoffUncertain?.();
          // The completion made tasks ready (a DAG's next steps): claim now rather than wait for
          // the NOTIFY to come back through the listener.
          if (res.applied && res.ready) this.deps.onReady?.();
          this.deps.health?.reportSuccess();
          this.record({ taskId: task.id, attempt: task.attempt, outcome: result.outcome, applied: res.applied, late });
          if (res.applied) {
            const durationMs = Date.now() - (this.startTimes.get(task) ?? Date.now());
            this.deps.onCompleted?.({ handler: task.handler, outcome: result.outcome, durationMs, taskStatus: res.task?.status });
          }
          if (!res.applied) {
            log.warn({ outcome: result.outcome, late }, late ? 'late result refused: the attempt was already settled' : 'completion refused: lease or attempt no longer ours');
            // A cancel that committed after the handler returned and before this completion left
            // the key held by this worker (the late case freed it when the handler returned).
            if (!late) this.freeHeldKey(task);
          } else {
            if (this.deps.logger.isLevelEnabled('debug')) log.debug({ outcome: result.outcome }, 'attempt completed');
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
          this.deps.health?.reportFailure(err);
          // Unreachable database: keep the result and retry for as long as the lease is ours
          // (the heartbeat renews it; see the file comment). Any other error: a few more tries.
          if (!isDatabaseUnavailable(err)) otherFailures++;
          if (rec.lost || this.stopped || late || otherFailures >= 8) {
            if (!rec.lost && !late) {
              // the handler ran and the lease may still be ours: not a task to hand back unstarted
              this.abandoned.add(task.id);
              if (this.abandoned.size > ABANDONED_KEPT) this.abandoned.delete(this.abandoned.values().next().value!);
            }
            log.error({ err, outcome: result.outcome, leaseLost: rec.lost, stopped: this.stopped }, 'could not record the attempt outcome; giving up (the lease expires and the task is reclaimed)');
            return;
          }
          if (i === 1 || i % 20 === 0) log.warn({ err: (err as Error)?.message, outcome: result.outcome, tries: i }, 'could not record the attempt outcome yet; keeping it and retrying');
          const delay = Math.round(Math.min(2000, 100 * 2 ** Math.min(i, 5)) * (0.5 + 0.5 * Math.random()));
          await new Promise<void>((r) => {
            const timer = setTimeout(r, delay);
            wakeUp = () => {
              clearTimeout(timer);
              r();
            };
          });
          wakeUp = () => undefined;
        }
      }
    } finally {
      if (this.recording.get(task.id) === rec) this.recording.delete(task.id);
      this.pendingCompletions--;
    }
  }

  private record(c: CompletionRecord): void {
    this.completions.push(c);
    // Trimmed in chunks: the last 1,000 to 2,000 are kept, without moving the array on every push.
    if (this.completions.length > 2000) this.completions.splice(0, this.completions.length - 1000);
  }
}

