/**
 * The run engine: the one module that changes task state (docs/design.md §2, §4).
 * Every function takes `db` (a Prisma client or an interactive transaction —
 * it joins the transaction instead of opening one) and an injectable `now`
 * (UTC instant; defaults to the wall clock). Business times never come from
 * SQL now(). Vocabulary and state machines: ./states.ts.
 */

/** triggerRun(db, {jobId, trigger, triggeredBy, scheduledFor, payload?, parentRunId?}, now) => {run, outcome}; recordSkippedRun(db, {jobId, scheduledFor, reason, triggeredBy}, now) => Run. */
export { triggerRun, recordSkippedRun, triggerRunAhead, type TriggerAuthorize } from './trigger-run.ts';
/** triggerRuns(db, {jobId, trigger, triggeredBy, scheduledFor, runs: [{payload?}]}, now) => [{run, outcome}] in order: bulk enqueue, one transaction. */
export { triggerRuns, MAX_BULK_RUNS, type TriggerRunsInput } from './trigger-runs.ts';
/** cancelAheadRuns(db, {jobId, actor, reason}, now) => {cancelledRunIds, nextRunAt}: a paused/edited/deleted job's runs created ahead of a future slot. */
export { BEFORE_SLOT_ERROR, cancelAheadRuns, cancelQueuedRuns, QUEUED_CANCELLED_ERROR } from './cancel-ahead-runs.ts';
/** claimTasks(db, {nodeId, handlers, group, labels, limit, leaseSeconds (s), nodeStaleSeconds?}, now) => ClaimedTask[]. */
export { claimTasks } from './claim-tasks.ts';
/** completeTask(db, {taskId, attempt, nodeId, outcome, output?, error?, exitCode?}, now) => {applied, task?, runStatus?}. */
export { completeTask, completeTasks } from './complete-task.ts';
/** markRunsStarted(db, [{runId, scheduledFor, startedAt}], now) => runs moved pending -> running (one-step runs whose attempt lasts). */
export { markRunsStarted, type RunStart } from './mark-runs-started.ts';
/** markAttemptOverdue(db, {taskId, attempt, nodeId, timeoutSeconds}, now) => marked ('timed out, still running'). */
export { markAttemptOverdue } from './mark-attempt-overdue.ts';
/** releaseTasks(db, {nodeId, tasks, reason}, now) => count: claimed tasks a stopping worker never started, handed back (running -> pending, same attempt). */
export { releaseStrayTasks, releaseTasks } from './release-tasks.ts';
export { markHeldTasksStarted } from './mark-held-tasks-started.ts';
/** extendLeases(db, {nodeId, taskIds, leaseSeconds (s)}, now) => {extended, lost, cancelled}. */
export { extendLeases } from './extend-leases.ts';
/** settleStrandedRuns(db, {quietSeconds (s), limit}, now) => [{runId, status}]: open runs in which nothing can move, repaired. */
export { settleStrandedRuns, type SettledRun } from './settle-stranded-runs.ts';
/** releaseHeldResourceKeys(db, {nodeId, taskIds}), renewHeldResourceKeys(db, {nodeId, taskIds, leaseSeconds (s)}, now), expireHeldResourceKeys(db, now): keys a cancelled attempt holds until its work stopped. */
export { expireHeldResourceKeys, releaseHeldResourceKeys, renewHeldResourceKeys } from './held-resource-keys.ts';
/** reclaimExpiredLeases(db, {limit}, now) => ReclaimedTask[]. */
export { reclaimExpiredLeases, type ReclaimedTask } from './reclaim-expired-leases.ts';
/** cancelRun(db, runId, actor, now) => Run (cancelled). */
export { cancelRun } from './cancel-run.ts';
/** retryTask(db, taskId, actor, now) => {taskId, runId, reopened}. */
export { retryTask } from './retry-task.ts';
/** retryRun(db, runId, actor, now) => the new Run (trigger 'retry', parent_run_id set). */
export { retryRun } from './retry-run.ts';
/** markTaskSuccess(db, {taskId, actor, reason}, now), clearTask(db, {taskId, actor, reason?}, now), backfillRuns(db, {jobId, slots, actor, reason?, from, to}, now): docs/recovery.md. */
export { markTaskSuccess } from './mark-task-success.ts';
export { clearTask } from './clear-task.ts';
export { backfillRuns } from './backfill-runs.ts';
export { coveredSlots, type CoveredSlot } from './sql/covered-slots.ts';
export { firstSlotNotYetDue } from './backfill-runs.ts';
export { findMissedAheadRun } from './sql/ahead-runs.ts';

export {
  TASK_STATUSES,
  RUN_STATUSES,
  RUN_TRIGGERS,
  FINAL_TASK_STATUSES,
  FINAL_RUN_STATUSES,
  TASK_TRANSITIONS,
  RUN_TRANSITIONS,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  DEP_TYPES,
  BLOCK_STRATEGIES,
  isFinalTaskStatus,
  isFinalRunStatus,
  canTransition,
  canRunTransition,
  canJobTransition,
  type TaskStatus,
  type JobStatus,
  type RunStatus,
  type DepType,
  type BlockStrategy,
} from './states.ts';
export { TASKS_CHANNEL, CANCEL_CHANNEL, JOBS_CHANNEL, notifiedAt } from './notify.ts';
export { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT, STATS_TZ_SQL } from './stats.ts';
export type {
  Run,
  RunTrigger,
  TriggerRunInput,
  TriggerRunResult,
  TriggerOutcome,
  ClaimInput,
  ClaimedTask,
  CompleteTaskInput,
  CompleteTaskResult,
  CompleteOutcome,
  ExtendLeasesInput,
  ExtendLeasesResult,
} from './types.ts';
/** nextTaskDue(db, {handlers}) => the earliest schedule_at of a ready task, or null. */
export { nextTaskDue } from './sql/next-task-due.ts';
