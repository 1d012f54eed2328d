/** Public shapes of the engine API (camelCase, instants as UTC `Date`s). */
import type { Run } from '../generated/prisma/client.ts';

export type { Run };

export type RunTrigger = 'schedule' | 'manual' | 'api' | 'retry' | 'backfill';

export interface TriggerRunInput {
  jobId: string;
  trigger: RunTrigger;
  /** who: a user email, token name, 'scheduler' or 'system' */
  triggeredBy: string;
  /** nominal fire time (ms precision); `runs.scheduled_for` */
  scheduledFor: Date;
  /** merged over job.payload and each step's payload (shallow, top-level keys) into every task's payload */
  payload?: Record<string, unknown>;
  /** the run this one retries (trigger 'retry') */
  parentRunId?: string;
  /**
   * when the run's tasks become claimable (UTC; default `now`). The tick's look-ahead sets it to
   * the slot's due instant for a run created before its slot (docs/on-time.md).
   */
  scheduleAt?: Date;
  /**
   * A catch-up run of the same tick as this earlier run (fire_all): it is queued behind
   * the job's active runs like serial_execution, whatever the block strategy, which
   * applies only against runs of other ticks.
   */
  followsRun?: string;
}

export type TriggerOutcome = 'started' | 'queued' | 'skipped' | 'covered';

export interface TriggerRunResult {
  run: Run;
  /** started: tasks claimable now; queued: serial_execution gate; skipped: discard_later; covered: cover_early cancelled earlier runs */
  outcome: TriggerOutcome;
  /** runs cancelled by cover_early */
  coveredRunIds?: string[];
}

export interface ClaimInput {
  nodeId: string;
  /** handler names this node can execute */
  handlers: string[];
  /** this node's routing group (`worker_nodes.group`) */
  group: string;
  /** this node's labels; a task's `routing.labels` must all be present with equal values */
  labels: Record<string, string>;
  /** max tasks to claim (>= 1) */
  limit: number;
  /** lease length in seconds: lease_until = now + leaseSeconds */
  leaseSeconds: number;
  /** consistent_hash: nodes whose heartbeat is older than this many seconds are not owners (default 30) */
  nodeStaleSeconds?: number;
  /**
   * handler names this node holds only to fail their tasks with a clear error (`shell` on a
   * worker without TICKFLOW_ALLOW_SHELL): claimed only while no other live node (heartbeat
   * within nodeStaleSeconds) offers them, so a worker that can run them always gets them
   * first (docs/security.md "Shell"). Default none.
   */
  fallbackHandlers?: string[];
  /**
   * claim ahead: tasks due within this many ms after `now` are claimed too, each with its
   * schedule_at as its (planned) start and lease start; the worker holds it until then
   * (docs/on-time.md "Claiming ahead"). Default 0: only tasks due now.
   */
  aheadMs?: number;
  /**
   * how many of the claimed tasks due now the worker starts at once (its free slots); the others,
   * and every task claimed ahead, are claimed `held` (ClaimedTask.held). Default: `limit`.
   */
  startNow?: number;
}

/** A task handed to a worker by `claimTasks`. */
export interface ClaimedTask {
  id: string;
  runId: string;
  jobId: string;
  stepKey: string;
  handler: string;
  config: Record<string, unknown>;
  payload: Record<string, unknown>;
  attempt: number;
  maxRetries: number;
  timeoutSeconds: number;
  priority: number;
  resourceKey: string | null;
  /** the run's nominal fire time (tasks.scheduled_for = runs.scheduled_for; the history partition key) */
  scheduledFor: Date;
  /** the instant this attempt's lateness is measured from: the later of scheduledFor and when the step became ready, null in a backfill run (lib/engine/sql/stats-outcome.ts latenessFromSql) */
  latenessFrom?: Date | null;
  /** the run's job key (runs.job_key), handed to handlers */
  jobKey: string | null;
  startedAt: Date;
  leaseUntil: Date;
  version: number;
  /** the run has no other task (a one-step job): its success can take completeTask's one-statement path */
  onlyTask?: boolean;
  /**
   * claimed to be held, not started at once (claimed ahead, or beyond ClaimInput.startNow): the
   * worker records its start once its attempt has lasted a moment (markHeldTasksStarted; the
   * heartbeat too); until then the reaper hands it back to pending on the same attempt if the
   * worker dies, at most MAX_UNSTARTED_HAND_BACKS times (docs/on-time.md "Prefetch")
   */
  held?: boolean;
}

export type CompleteOutcome = 'success' | 'failed' | 'timeout';

export interface CompleteTaskInput {
  taskId: string;
  /**
   * The task's keys as its claim returned them (ClaimedTask.runId, jobId, scheduledFor): with
   * them a success is found by primary key in its own week (docs/operations.md "History
   * partitions"); without them the engine looks them up by id first.
   */
  runId?: string;
  jobId?: string;
  scheduledFor?: Date;
  /** the attempt the worker ran (from ClaimedTask.attempt); a stale attempt is refused */
  attempt: number;
  /** the node that holds the lease; another holder is refused */
  nodeId: string;
  outcome: CompleteOutcome;
  /**
   * when the attempt really started (UTC), when that is not the claim's started_at: a task
   * claimed ahead of its slot and started later than planned (ClaimInput.aheadMs); recorded as
   * tasks.started_at, from which duration and lateness are counted
   */
  startedAt?: Date;
  output?: unknown;
  error?: string | null;
  exitCode?: number | null;
  /**
   * false: a failure that repeating cannot fix (a payload the handler's input schema refuses):
   * the task goes `dead` at once instead of being retried (default true).
   */
  retryable?: boolean;
  /** [0,1) source for backoff jitter (tests) */
  random?: () => number;
  /**
   * ClaimedTask.onlyTask, passed back as a hint: false skips the one-statement attempt for a
   * task of a multi-task run (it could never apply there). Correctness never depends on it.
   */
  onlyTask?: boolean;
  /**
   * The completing worker has a free slot and takes a step this success makes ready, claimed
   * for it in the same statement (a chain's next step: lib/engine/sql/complete-dag-tasks.ts
   * "Hand-off"); its claim configuration. Omitted: no hand-off.
   */
  handoff?: { handlers: string[]; group: string; labels: Record<string, string>; leaseSeconds: number };
}

export interface CompleteTaskResult {
  /** false: the compare-and-set lost (stale attempt, lease taken over, task cancelled); nothing changed */
  applied: boolean;
  task?: {
    id: string;
    runId: string;
    /** the status the task ended in for this transaction: success | pending (retry scheduled) | dead */
    status: 'success' | 'pending' | 'dead';
    attempt: number;
    /** when status is pending: the retry's earliest start */
    retryAt?: Date;
  };
  /** when the run reached a final status in this transaction */
  runStatus?: string;
  /**
   * tasks of the run that became ready (claimable now) through this completion and were not
   * handed off — a worker claims at once instead of waiting for the NOTIFY (worker/runner.ts);
   * absent when none
   */
  ready?: number;
  /** steps claimed for the completing node by this completion (CompleteTaskInput.handoff): it must start them */
  handedOff?: ClaimedTask[];
}

export interface ExtendLeasesInput {
  nodeId: string;
  taskIds: string[];
  leaseSeconds: number;
  /**
   * those of `taskIds` whose handler has been called: a held one among them (ClaimedTask.held) is
   * marked started, in case its start marker's statement failed (worker/start-marker.ts)
   */
  startedTaskIds?: string[];
}

export interface ExtendLeasesResult {
  /** leases extended to now + leaseSeconds */
  extended: string[];
  /** no longer running under this node (completed elsewhere, reclaimed, cancelled): abort them */
  lost: string[];
  /** those of `lost` that an operator or a block strategy cancelled (status `cancelled`): abort them as cancelled, not as a lost lease */
  cancelled: string[];
}
