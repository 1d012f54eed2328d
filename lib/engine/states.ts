/**
 * Tickflow engine vocabulary and state machines (docs/design.md §1 and §4).
 *
 * Glossary (the same words are used in tables, files, UI labels and API fields):
 * - job         — a definition: a DAG of one or more steps, a schedule, a policy (retries, timeout, block strategy), routing and alarms.
 * - step        — one node of a job's DAG: a handler plus config/payload and per-step overrides (timeout, retries, resource_key).
 * - run         — one trigger of a job (schedule, manual, api, retry); owns exactly one task per step.
 * - task        — one step's execution inside a run; the unit a worker claims. Its status is a `TaskStatus`.
 * - attempt     — one execution of a task (1-based `tasks.attempt`); a retry is a new attempt of the same task row.
 * - lease       — `tasks.lease_until`: how long the claiming worker owns a running task; extended by heartbeat, reclaimed when expired.
 * - claim       — atomically moving ready tasks pending -> running for one worker (`UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)`).
 * - tick        — the scheduler pass that fires due jobs (creates runs) and advances `jobs.next_run_at` (lib/engine/tick, WORKER).
 * - misfire     — a fire time that passed while no tick ran; handled by the job's misfire policy (recorded as `skipped` runs).
 * - dead letter — a job moved to status `dead_letter` after `dead_letter_after` consecutive failed runs; a task that used up its retries is `dead`.
 *
 * Task state machine (must match the SQL trigger `tasks_valid_transition`, last
 * redefined in prisma/migrations/20261205000000_release_unstarted_tasks; tests/integration/engine-states.test.ts checks both agree):
 *
 * ```mermaid
 * stateDiagram-v2
 *   [*] --> pending: run created
 *   pending --> running: claim
 *   running --> pending: handed back unstarted (same attempt)
 *   running --> success
 *   running --> failed
 *   running --> timeout
 *   failed --> pending: retry (attempt+1, backoff)
 *   timeout --> pending: retry (attempt+1, backoff)
 *   failed --> dead: retries used up
 *   timeout --> dead: retries used up
 *   pending --> cancelled: cancel run
 *   running --> cancelled: cancel run (late completion refused)
 *   pending --> skipped: parent outcome / deadlock
 *   dead --> pending: operator retry
 *   skipped --> pending: operator retry
 *   cancelled --> pending: operator retry
 *   dead --> success: operator mark success
 *   success --> pending: operator clear (runs again)
 *   success --> [*]
 *   dead --> [*]
 *   cancelled --> [*]
 *   skipped --> [*]
 * ```
 *
 * `failed` and `timeout` are transient: the engine never commits a task in them;
 * the same transaction moves it on to `pending` (retry) or `dead`, so the task
 * log always shows e.g. running -> timeout -> dead.
 */

/** Task statuses, the `task_status` SQL enum. */
export const TASK_STATUSES = [
  /** waiting: for its parents (`pending_parents > 0`), its backoff (`schedule_at > now`), or a worker. */
  'pending',
  /** claimed by `locked_by` until `lease_until`; the lease is extended while the worker lives. */
  'running',
  /** final: the handler returned normally. */
  'success',
  /** transient: the attempt threw / exited non-zero / its lease expired; immediately followed by pending (retry) or dead. */
  'failed',
  /** transient: the attempt exceeded `timeout_seconds`; immediately followed by pending (retry) or dead. */
  'timeout',
  /** final: the run was cancelled (cover_early or an operator) while this task was pending or running. */
  'cancelled',
  /** final: the last allowed attempt failed or timed out (retries used up). */
  'dead',
  /** final: never ran — a parent's outcome excluded it (with `error` naming the parent), an on_failure branch not
   *  taken (skipped by design: `error` is NULL), or deadlock. */
  'skipped',
] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Run triggers, the `run_trigger` SQL enum: who or what created a run ('backfill': docs/recovery.md). */
export const RUN_TRIGGERS = ['schedule', 'manual', 'api', 'retry', 'backfill'] as const;

/** Run statuses, the `run_status` SQL enum. */
export const RUN_STATUSES = [
  /** created, no task has started yet (or queued behind an active run by serial_execution). */
  'pending',
  /** at least one task has started and not every task is final. */
  'running',
  /** final: every task succeeded or was skipped by design. */
  'success',
  /** final: some task ended dead / skipped by failure, or the run deadlocked. */
  'failed',
  /** final: like failed, but a task's last attempt timed out. */
  'timeout',
  /** final: cancelled by an operator or covered by a newer run (cover_early). */
  'cancelled',
  /** final: never executed — discarded by the block strategy (discard_later) or a misfire policy. */
  'skipped',
] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const FINAL_TASK_STATUSES: readonly TaskStatus[] = ['success', 'dead', 'cancelled', 'skipped'];
export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['success', 'failed', 'timeout', 'cancelled', 'skipped'];

/** true for success, dead, cancelled, skipped (docs/design.md §4). */
export function isFinalTaskStatus(status: string): boolean {
  return (FINAL_TASK_STATUSES as readonly string[]).includes(status);
}

/** true for every run status except pending and running. */
export function isFinalRunStatus(status: string): boolean {
  return (FINAL_RUN_STATUSES as readonly string[]).includes(status);
}

/**
 * Allowed task transitions [from, to]; the SQL trigger `tasks_valid_transition`
 * rejects anything else with check_violation. After the engine's own moves come
 * the operator's: retry (-> pending), mark success (dead | failed | timeout ->
 * success) and clear (success -> pending); docs/recovery.md.
 */
export const TASK_TRANSITIONS: ReadonlyArray<readonly [TaskStatus, TaskStatus]> = [
  ['pending', 'running'],
  // a worker hands back a task it claimed but never started (release-tasks.ts): no attempt counted
  ['running', 'pending'],
  ['running', 'success'],
  ['running', 'failed'],
  ['running', 'timeout'],
  ['failed', 'pending'],
  ['timeout', 'pending'],
  ['failed', 'dead'],
  ['timeout', 'dead'],
  ['pending', 'cancelled'],
  ['running', 'cancelled'],
  ['pending', 'skipped'],
  ['dead', 'pending'],
  ['skipped', 'pending'],
  ['cancelled', 'pending'],
  ['dead', 'success'],
  ['failed', 'success'],
  ['timeout', 'success'],
  ['success', 'pending'],
];

/** true when `table` allows `from -> to` (same status: always). */
function allowed<S extends string>(table: ReadonlyArray<readonly [S, S]>, from: S, to: S): boolean {
  return from === to || table.some(([f, t]) => f === from && t === to);
}

/** true when a task may move from `from` to `to` (same status: always). */
export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return allowed(TASK_TRANSITIONS, from, to);
}

/**
 * Allowed run transitions [from, to]; the SQL trigger `runs_valid_transition`
 * (migration 20261201300001_run_job_transitions) rejects anything else with
 * check_violation; tests/integration/engine-states.test.ts checks both agree.
 * A run is inserted `pending` (or `skipped`, never updated after).
 * - pending -> running: a claim started its first task (claim-tasks.ts);
 * - pending | running -> success | failed | timeout | cancelled: the run ended (finalise-run.ts,
 *   complete-only-tasks.ts; cancel and cover_early end it `cancelled`); a run that never
 *   started can end too (a job without steps, a cancel, a run left `pending` by a claim that
 *   did not wait for its row — lib/engine/lock-order.ts);
 * - failed | timeout | cancelled | success -> pending | running: an operator retried or cleared a task (reopen-tasks.ts:
 *   `pending` when no task had started).
 */
export const RUN_TRANSITIONS: ReadonlyArray<readonly [RunStatus, RunStatus]> = [
  ['pending', 'running'],
  ['pending', 'success'],
  ['pending', 'failed'],
  ['pending', 'timeout'],
  ['pending', 'cancelled'],
  ['running', 'success'],
  ['running', 'failed'],
  ['running', 'timeout'],
  ['running', 'cancelled'],
  ['failed', 'pending'],
  ['failed', 'running'],
  ['timeout', 'pending'],
  ['timeout', 'running'],
  ['cancelled', 'pending'],
  ['cancelled', 'running'],
  // an operator's clear (clear-task.ts) re-runs tasks of a run that succeeded
  ['success', 'pending'],
  ['success', 'running'],
];

/** true when a run may move from `from` to `to` (same status: always). */
export function canRunTransition(from: RunStatus, to: RunStatus): boolean {
  return allowed(RUN_TRANSITIONS, from, to);
}

/** Job statuses, the `job_status` SQL enum. */
export const JOB_STATUSES = [
  /** fires on its schedule. */
  'active',
  /** no fires: paused by an operator, or by the system when its schedule ended or cannot be evaluated. */
  'paused',
  /** no fires: `dead_letter_after` consecutive failed runs (finalise-run.ts); resume clears it. */
  'dead_letter',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/**
 * Allowed job transitions [from, to]; the SQL trigger `jobs_valid_transition`
 * rejects anything else (same migration and test as RUN_TRANSITIONS).
 * - active -> paused: operator pause (lib/jobs/pause-job.ts), schedule ended or broken (lib/engine/tick);
 * - dead_letter -> paused: operator pause of a dead-lettered job;
 * - paused | dead_letter -> active: operator resume (lib/jobs/resume-job.ts);
 * - active -> dead_letter: too many consecutive failed runs (finalise-run.ts).
 */
export const JOB_TRANSITIONS: ReadonlyArray<readonly [JobStatus, JobStatus]> = [
  ['active', 'paused'],
  ['dead_letter', 'paused'],
  ['paused', 'active'],
  ['dead_letter', 'active'],
  ['active', 'dead_letter'],
];

/** true when a job may move from `from` to `to` (same status: always). */
export function canJobTransition(from: JobStatus, to: JobStatus): boolean {
  return allowed(JOB_TRANSITIONS, from, to);
}

/** Edge (dependency) types, the `dep_type` SQL enum (docs/design.md §4). */
export const DEP_TYPES = [
  /** child becomes ready when the parent succeeds; skipped if the parent ends dead/cancelled/skipped. */
  'hard',
  /** child becomes ready when the parent reaches any final state. */
  'soft',
  /** child runs only if the parent ends dead (unsuccessfully); skipped by design if the parent succeeds. */
  'on_failure',
] as const;
export type DepType = (typeof DEP_TYPES)[number];

/** Block strategies (docs/design.md §4): what a new trigger does while an earlier run of the job is pending/running. */
export const BLOCK_STRATEGIES = ['discard_later', 'serial_execution', 'cover_early'] as const;
export type BlockStrategy = (typeof BLOCK_STRATEGIES)[number];
