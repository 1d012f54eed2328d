import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { attemptDurationMsSql, latenessFromSql, readyAtOnReleaseSql } from './stats-outcome.ts';
import { intoJoinSql } from './release-joins.ts';

export interface FinishedAttempt {
  id: string;
  runId: string;
  jobId: string;
  stepKey: string;
  handler: string;
  status: 'success' | 'failed' | 'timeout';
  attempt: number;
  maxRetries: number;
  backoff: { baseSeconds?: number; factor?: number; maxSeconds?: number; jitter?: number };
  startedAt: Date | null;
  /** the instant the attempt's lateness is measured from (stats-outcome.ts latenessFromSql) */
  latenessFrom: Date | null;
  lockedBy: string;
  /** children whose pending_parents reached 0 in this statement (success over hard/soft edges into tasks of one parent) */
  ready: number;
  /** a success's hard/soft edges into join tasks, left to the caller's releaseJoinTasks (release-joins.ts) */
  joinChildren: number;
  /** the task's week (runs.scheduled_for, the partition key) */
  scheduledFor: Date;
  /** pending on_failure children of a successful task: they must be skipped by design (propagate) */
  onFailureChildren: number;
}

/** How one attempt ended, as reported by a worker or decided by the reaper. */
export interface AttemptEnd {
  taskId: string;
  attempt: number;
  nodeId: string;
  outcome: 'success' | 'failed' | 'timeout';
  output: unknown;
  error: string | null;
  exitCode: number | null;
  /** the task-log message for the running -> outcome row */
  message: string;
  /** reclaim only: the lease must have expired before this instant */
  leaseExpiredBefore: Date | null;
  /** the attempt's real start when not the claim's (a task claimed ahead, started later), else null */
  startedAt?: Date | null;
}

/**
 * Ends one attempt: running -> success | failed | timeout, as a compare-and-set
 * on (id, status = 'running', attempt, locked_by). A lost race (stale attempt,
 * lease reclaimed, run cancelled) matches no row: nothing changes, no error.
 * In the same statement: the task_logs row, the run pending -> running when it
 * was not marked yet (a one-step run), and — for success, the common
 * case — the pending_parents decrement of its hard/soft children that have no other
 * parent, NOTIFYing workers when one became ready; join tasks are the caller's next
 * statement (release-joins.ts releaseJoinTasks). on_failure children of a success and all children of
 * a dead task are handled by propagate-final.ts.
 *
 * Lock: the caller holds the run row (lib/engine/lock-order.ts: run before
 * task, so sibling completions of a run take turns), then the task row (UPDATE)
 * and the pending children rows (UPDATE). Index: tasks primary key; task_dependencies_parent_idx for the
 * children, so the cost is proportional to the task's out-edges.
 * `leaseExpiredBefore` (reclaim) adds `lease_until < $` so a lease extended in
 * the meantime wins over the reaper.
 */
export async function finishAttempt(
  tx: SqlClient,
  p: AttemptEnd,
  now: Date,
): Promise<FinishedAttempt | null> {
  const rows = await tx.$queryRawUnsafe<FinishedAttempt[]>(
    preparedSql('finish-attempt', `WITH t AS (
       UPDATE tasks
          SET status = $4::task_status, completed_at = $9::timestamptz, lease_until = NULL, held = false,
              output = $5::jsonb, error = $6, exit_code = $7::int, version = version + 1, updated_at = $9::timestamptz,
              started_at = coalesce($11::timestamptz, started_at)
        -- status::text: keeps the planner on tasks_pkey; with status = 'running' it may pick the partial
        -- tasks_lease_idx (same predicate) and filter every running task by id.
        WHERE id = $1::uuid AND status::text = 'running' AND attempt = $2::int AND locked_by = $3
          AND ($10::timestamptz IS NULL OR lease_until < $10::timestamptz)
       RETURNING id, run_id, scheduled_for, job_id, step_key, handler, status, attempt, max_retries, backoff, started_at, ready_at, locked_by
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'running', status, $8,
              jsonb_strip_nulls(jsonb_build_object('error', $6::text, 'exitCode', $7::int,
                'durationMs', ${attemptDurationMsSql('$9::timestamptz', 'started_at')})),
              locked_by, $9::timestamptz
         FROM t
       RETURNING 1
     ), started AS (
       -- A run not marked running yet (a one-step run: docs/engine.md "Run start") is from here
       -- on: its attempt ended, and it either goes on (a retry) or ends in the caller's next
       -- statement. The caller holds the run row.
       UPDATE runs r SET status = 'running', started_at = t.started_at, updated_at = $9::timestamptz
         FROM t
        WHERE r.id = t.run_id AND r.scheduled_for = t.scheduled_for AND r.status::text = 'pending'
       RETURNING 1
     ), dec AS (
       -- Children by primary key from an array built off task_dependencies_parent_idx: a plain join let
       -- the planner (stale statistics right after a bulk trigger) walk every pending task of the table
       -- (tasks_run_open_idx on status) per completion, which made queue drains quadratic.
       UPDATE tasks c SET pending_parents = c.pending_parents - 1, updated_at = $9::timestamptz,
                          ready_at = ${readyAtOnReleaseSql('c', 'c.pending_parents - 1', '$9::timestamptz')}
        WHERE c.id = ANY (ARRAY(SELECT d.task_id FROM task_dependencies d
                                 WHERE d.parent_task_id = $1::uuid AND d.dep_type IN ('hard', 'soft') AND NOT ${intoJoinSql('d')}))
          AND c.status = 'pending' AND EXISTS (SELECT 1 FROM t WHERE t.status = 'success')
       RETURNING c.pending_parents
     ), counts AS (
       SELECT (SELECT count(*) FROM dec WHERE pending_parents = 0)::int AS ready,
              -- joins are released by the caller's next statement (release-joins.ts)
              (SELECT count(*) FROM task_dependencies d
                WHERE d.parent_task_id = $1::uuid AND d.dep_type IN ('hard', 'soft') AND ${intoJoinSql('d')}
                  AND EXISTS (SELECT 1 FROM t WHERE t.status = 'success'))::int AS join_children,
              (SELECT count(*) FROM tasks c
                WHERE c.id = ANY (ARRAY(SELECT d.task_id FROM task_dependencies d
                                         WHERE d.parent_task_id = $1::uuid AND d.dep_type = 'on_failure'))
                  AND c.status = 'pending' AND EXISTS (SELECT 1 FROM t WHERE t.status = 'success'))::int AS on_failure_children
     )
     SELECT t.id, t.run_id AS "runId", t.job_id AS "jobId", t.step_key AS "stepKey", t.handler, t.status::text AS status,
            t.attempt, t.max_retries AS "maxRetries", t.backoff, t.started_at AS "startedAt",
            -- read here, not in the UPDATE's RETURNING: no sub-select of runs inside an UPDATE of tasks
            -- (docs/operations.md "History partitions")
            ${latenessFromSql('t', undefined, { pruned: true })} AS "latenessFrom",
            t.locked_by AS "lockedBy", counts.ready, counts.on_failure_children AS "onFailureChildren",
            counts.join_children AS "joinChildren", t.scheduled_for AS "scheduledFor",
            (SELECT count(*) FROM log)::int AS "_logged", (SELECT count(*) FROM started)::int AS "_started",
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE counts.ready > 0) n)::int AS "_notified"
       FROM t, counts`),
    p.taskId, p.attempt, p.nodeId, p.outcome, p.output === undefined ? null : JSON.stringify(p.output), p.error,
    p.exitCode, p.message, now, p.leaseExpiredBefore, p.startedAt ?? null,
  );
  return rows[0] ?? null;
}
