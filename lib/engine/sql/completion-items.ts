/**
 * What the two batched success statements (complete-only-tasks.ts, complete-dag-tasks.ts) share:
 * the batch parameter, the task's success SET, the finishing task_logs row and the task locks.
 *
 * A batch of successful attempts as the batched completion statements read it
 * (complete-only-tasks.ts, complete-dag-tasks.ts): one jsonb parameter. output travels as
 * JSON text so that a JSON null output stays the jsonb value null (undefined: the key is
 * left out, SQL NULL), as in a single update.
 */
export interface CompletionItem {
  taskId: string;
  /** the task's keys as its claim returned them: its run, job and week (tasks.scheduled_for, the partition key) */
  runId: string;
  jobId: string;
  scheduledFor: Date;
  attempt: number;
  /** the attempt's real start when not the claim's (CompleteTaskInput.startedAt), else null */
  startedAt?: Date | null;
  output: unknown;
  error: string | null;
  exitCode: number | null;
  /** the completing worker takes a step this success makes ready (complete-dag-tasks.ts hand-off) */
  handoff?: boolean;
}

/** The jsonb parameter of a batch. */
export function completionItemsParam(items: readonly CompletionItem[]): string {
  return JSON.stringify(items.map((i) => ({
    id: i.taskId, scheduled_for: i.scheduledFor.toISOString(), run_id: i.runId, job_id: i.jobId, attempt: i.attempt,
    started_at: i.startedAt ? i.startedAt.toISOString() : null,
    output: i.output === undefined ? undefined : JSON.stringify(i.output), error: i.error, exit_code: i.exitCode,
    handoff: i.handoff === true,
  })));
}

/**
 * The LIMIT the one-step statement (complete-only-tasks.ts) writes after a batch's rows
 * (completionItemsSql): the batch size rounded up to a power of two, so it never cuts the batch and makes a handful of statement texts. It is there
 * for the planner, which takes a jsonb_to_recordset for 100 rows: planning one or a few items as
 * 100, it chose to scan a young week's tasks partition whole (a few thousand rows) and hash them,
 * where a key lookup per item is what a batch needs.
 */
export function itemsRowLimit(n: number): number {
  let limit = 1;
  while (limit < n) limit *= 2;
  return limit;
}

/** SQL reading the batch back from parameter `$param` as rows (id, scheduled_for, run_id, job_id, attempt, started_at, output, error, exit_code, handoff). */
export function completionItemsSql(param: number): string {
  return `jsonb_to_recordset($${param}::jsonb)
         AS x(id uuid, scheduled_for timestamptz, run_id uuid, job_id uuid, attempt int, started_at timestamptz,
              output text, error text, exit_code int, handoff boolean)`;
}

/**
 * SET clause of a task's running -> success compare-and-set in a batch: the item's output,
 * error and exit code from the batch rows `i` (completionItemsSql), its real start when the
 * worker sent one (a task claimed ahead), the lease released.
 * @param now SQL of the completion instant (timestamptz)
 */
export function successSetSql(now: string): string {
  return `status = 'success', completed_at = ${now}, lease_until = NULL, held = false, started_at = coalesce(i.started_at, tasks.started_at),
              output = i.output::jsonb, error = i.error, exit_code = i.exit_code, version = tasks.version + 1, updated_at = ${now}`;
}

/**
 * The finishing task_logs row of each success in `t` (columns id, run_id, scheduled_for, attempt, error,
 * exit_code, dur, locked_by): its detail.durationMs is what the stats rebuild reads back
 * (stats-outcome.ts). Written as a data-modifying CTE body (add `RETURNING 1`).
 * @param now SQL of the completion instant; @param message SQL of the log message
 */
export function successLogSql(now: string, message: string): string {
  return `INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'running', 'success', ${message},
              jsonb_strip_nulls(jsonb_build_object('error', error, 'exitCode', exit_code, 'durationMs', dur)),
              locked_by, ${now}
         FROM t`;
}

/**
 * The batch's earliest week: the least scheduled_for (the partition key) of its items, the
 * value of the parameter weekFloorSql compares with.
 * @throws Error on an empty batch (a programming error: callers return before)
 */
export function itemsWeekFloor(items: readonly CompletionItem[]): Date {
  if (items.length === 0) throw new Error('itemsWeekFloor: empty batch');
  let floor = items[0].scheduledFor.getTime();
  for (const item of items) floor = Math.min(floor, item.scheduledFor.getTime());
  return new Date(floor);
}

/**
 * `alias.scheduled_for >= floor`, on the reads of tasks and runs in a completion statement.
 * Every row such a statement touches lies in one of its items' weeks (a run's tasks share its
 * scheduled_for), so the condition changes no result. What it changes is the executor's start:
 * `floor` is a statement parameter, so PostgreSQL drops the partitions of older weeks before the
 * statement runs ("initial pruning", PostgreSQL docs 5.11.4 "Partition Pruning") instead of
 * opening every week's indexes on every execution of the generic plan. With 12 weeks of history
 * the 40-step chain went from 105–109 ms to 89–92.
 * Only where every index that could serve it still needs a key (docs/engine.md "The hot path"):
 * a lower bound only (a two-sided range is estimated at 0.5 % of the rows and turned the planner
 * to walking the week), not on task_dependencies (its parent index has no week), and a status
 * an index leads with compared as status::text beside it.
 * @param alias the table's alias in the statement
 * @param floor SQL of the batch's earliest week (a timestamptz parameter: itemsWeekFloor)
 */
export function weekFloorSql(alias: string, floor: string): string {
  return `${alias}.scheduled_for >= ${floor}`;
}

/**
 * Body of the `lt` CTE: the items' task rows locked in ascending id, after the runs (`lr`), each
 * found by its primary key in its own week. Lease renewal (extend-leases.ts) locks a node's
 * running tasks in that order, so a completion batch and a heartbeat of the same worker never
 * wait on each other in a cycle (lock-order.ts).
 * @param floor SQL of the batch's earliest week (weekFloorSql)
 */
export function lockItemTasksSql(floor: string): string {
  return `SELECT k.id FROM tasks k WHERE (k.id, k.scheduled_for) IN (SELECT id, scheduled_for FROM i) AND ${weekFloorSql('k', floor)}
          AND (SELECT count(*) FROM lr) >= 0
        ORDER BY k.id FOR UPDATE OF k`;
}

