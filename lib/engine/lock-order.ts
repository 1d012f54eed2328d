/**
 * The engine's lock order — the one place it is decided (docs/engine.md "Lock order").
 *
 * Every transaction or statement of the engine that touches a job, its runs and
 * their tasks takes row locks in this order, and never waits for a lock that
 * comes earlier in the order than one it already holds:
 *
 *   1. jobs            (one row; the tick locks several due jobs, SKIP LOCKED; its catch-up before a
 *                       worker's first claim waits for them instead, in ascending id)
 *   2. runs            (a run; a second run of the same job only while holding the job row)
 *   3. tasks           (of those runs; several rows in ascending id)
 *   4. handler_stats_daily (last: a shared hot row, held the shortest time; several in handler order)
 *
 * A deadlock needs a cycle of waits, and a cycle needs some transaction to wait
 * for a lock earlier in the order than one it holds; so with this order no
 * cycle can form. The paths:
 *
 * | path | locks |
 * |---|---|
 * | trigger (tick, Run now, API, bulk, backfill, retry run) | job -> [the job's run created ahead of a slot still to come -> its tasks: withdrawn] -> [cover_early: active runs, ascending id -> their open tasks] -> new rows |
 * | trigger of idle jobs, one statement (idle-trigger-batch.ts) | jobs (SKIP LOCKED: never waits), ascending id -> new rows |
 * | cancel run | job -> run -> open tasks (ascending id) -> [job's next queued run -> its root tasks] |
 * | completion / lease reclaim | run -> task -> child tasks -> job (NOWAIT, see below) -> stats -> [next queued run -> its root tasks] |
 * | one-step success (complete-only-tasks.ts, one statement) | jobs -> runs -> tasks (each ascending id) -> stats ((day, handler) order) |
 * | batch of DAG successes (complete-dag-tasks.ts, one autocommit statement) | [in a caller's transaction: jobs, ascending id] -> runs (ascending id; FOR SHARE on a worker, FOR UPDATE in a caller's transaction) -> tasks (ascending id, as lease renewal) -> child tasks (ascending id; released, a handed-off one claimed) -> stats ((day, handler) order) |
 * | release of the join tasks of such a batch after its commit (complete-task.ts releaseJoinsAfterBatch, sql/release-joins.ts) | runs (ascending id, FOR SHARE) -> join tasks (ascending id, SKIP LOCKED: never waits for a task) |
 * | settling the runs such a batch did not move on (complete-task.ts settleDagBatch: an unlocked probe, then a transaction for the ending runs, and one for on_failure children of live runs) | [replay: jobs, ascending id] -> runs (ascending id; SKIP LOCKED for the on_failure children of live runs) -> on_failure children -> [job NOWAIT per ending run] -> stats |
 * | stranded-run repair (reaper, settle-stranded-runs.ts) | job -> run -> its pending tasks |
 * | one-step run marked running (mark-runs-started.ts) | runs, ascending id, nothing else |
 * | operator task retry / clear / mark success | job (no-op UPDATE: the run may re-open, its triggers must see it) -> run -> all its tasks (ascending id) -> [the job's run created ahead -> its tasks: withdrawn, see below] |
 * | pause, edit, delete of a job (cancel-ahead-runs.ts cancelAheadRuns) | job -> its runs created ahead -> their open tasks (ascending id) |
 * | bulk pause or delete (lib/jobs/bulk-jobs.ts) | jobs (ascending id) -> their runs created ahead (ascending id) -> those runs' open tasks (ascending id), each set in one pass before any job is worked on (sql/ahead-runs.ts lockAheadRunsOfJobs) |
 * | claim | tasks (SKIP LOCKED) -> runs (SKIP LOCKED): never waits, so never part of a cycle |
 * | hand-back of claimed, unstarted tasks (release-tasks.ts: a stopping worker, the reaper, stray tasks) | runs (ascending id, FOR SHARE) -> the tasks |
 * | lease renewal (heartbeat) | the node's own running tasks, ascending id |
 * | held-start marker (mark-held-tasks-started.ts) | the node's own running held tasks, ascending id |
 *
 * Batches of DAG successes on workers share a run (FOR SHARE): two of them hold it together and
 * then lock only their own running tasks (disjoint: each task has one holder) and the children
 * they release, in ascending id, so they cannot wait on each other in a cycle; everything that
 * locks the run FOR UPDATE waits for them before taking any task, and they for it. PostgreSQL's
 * row locks are not queued fairly: a new FOR SHARE is granted while the row is share-locked even
 * if a FOR UPDATE waits, so under batches that overlap without a gap (one wide DAG run, many
 * workers) a cancel, a failure or the run's end waits until there is one. Each batch is one
 * short statement, so that gap comes within a claim round; it is not a cycle.
 *
 * A run created ahead that an operator action withdraws (cancel-ahead-runs.ts) is locked after
 * another run's tasks, against the order. No cycle can go through it: such a run exists only
 * while no other run of the job is active, so the run being re-opened has no running task that
 * a lease renewal or completion could hold while waiting for the created-ahead run's tasks; those
 * are pending or held before their start (nothing completes them); the claim never waits; and
 * every other path that locks them (triggers, cancel, pause or edit) takes the job row first,
 * which the operator action already holds.
 *
 * Two deliberate exceptions, both unable to wait against the order:
 * - A completion learns that it ends its run only after it holds the run and
 *   task rows, and ending a run books the job row. It takes the job row
 *   `FOR UPDATE NOWAIT` (finalise-run.ts); when another transaction holds it
 *   (a trigger, a cancel, another run of the job ending), PostgreSQL answers
 *   55P03 at once, the transaction is rolled back and replayed with the job row
 *   locked FIRST ({@link JOB_FIRST} below), which is the order above.
 * - The claim moves a run `pending -> running` only if nobody holds the run
 *   row (SKIP LOCKED); a run that was locked keeps `pending` until its next
 *   claim or its end, which both read task states, never the run status.
 *
 * Replays: every engine write is a compare-and-set, so a rolled-back
 * transaction can be replayed as is. withEngineTransaction replays on 55P03
 * (the NOWAIT above), and on 40P01 / 40001 should one still happen (a lock
 * taken outside the engine, e.g. by an operator's SQL), a bounded number of
 * times with jittered backoff (replayDelayMs).
 */

/** SQLSTATEs after which an engine transaction is rolled back and replayed. */
export const REPLAYABLE_SQLSTATES: ReadonlySet<string> = new Set([
  '40P01', // deadlock_detected
  '40001', // serialization_failure
  '55P03', // lock_not_available: a NOWAIT lock taken against the order (see above)
]);

/** Marker for the replay of a completion: lock the job row first, then the run. */
export const JOB_FIRST = 'job-first' as const;

/** How many times an engine transaction is attempted before the error surfaces. */
export const MAX_ENGINE_ATTEMPTS = 8;

/**
 * Delay before replay number `attempt` (1-based) of a rolled-back transaction, in ms:
 * "full jitter" exponential backoff, uniform in [0, min(200, 5 * 2^attempt)],
 * so replaying transactions do not collide again in lock step.
 * @param random a [0, 1) source (tests)
 */
export function replayDelayMs(attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(200, 5 * 2 ** Math.max(0, attempt));
  return Math.floor(random() * cap);
}
