import { preparedSql, type SqlClient } from '../../db.ts';
import { runReopenCtesSql } from './run-outcome.ts';

/**
 * Operator mark success, the task half: dead | failed | timeout -> success as
 * a compare-and-set on (id, status, attempt), error cleared (the failure stays
 * in task_logs), one task_logs row naming the actor and the reason. The mark is
 * not an attempt: the task keeps its last attempt's end (completed_at) and worker
 * (locked_by), so its duration stays the attempt's, not the time until the mark; and, when
 * the run had already ended, the run back to running (pending if it never
 * started) and off its job's ended counters (run-outcome.ts runReopenCtesSql), so
 * finalise-run decides its status again and books it once.
 *
 * Lock: the run row and its task rows (held by the caller, lock-run.ts
 * withTasks). Index: tasks and runs primary keys.
 */
export async function markTaskSuccessSql(
  tx: SqlClient,
  p: { taskId: string; runId: string; from: string; attempt: number; actor: string; reason: string },
  now: Date,
): Promise<boolean> {
  const rows = await tx.$queryRawUnsafe<{ n: number }[]>(
    preparedSql('mark-task-success', `WITH t AS (
       UPDATE tasks SET status = 'success', error = NULL, lease_until = NULL,
              completed_at = coalesce(completed_at, $6::timestamptz), version = version + 1, updated_at = $6::timestamptz
        WHERE id = $1::uuid AND status = $2::task_status AND attempt = $3::int
       RETURNING id, run_id, scheduled_for, attempt
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, created_at)
       SELECT id, run_id, scheduled_for, attempt, $2::task_status, 'success', 'marked success by ' || $4 || ': ' || $5,
              jsonb_build_object('actor', $4::text, 'reason', $5::text, 'markedSuccess', true), $6::timestamptz
         FROM t
       RETURNING 1
     ), ${runReopenCtesSql({ runId: '$7::uuid', now: '$6::timestamptz', when: 'EXISTS (SELECT 1 FROM t)' })}
     SELECT (SELECT count(*) FROM t)::int AS n, (SELECT count(*) FROM log)::int AS logged, (SELECT count(*) FROM reopened_run)::int AS runs, (SELECT count(*) FROM unbooked_job)::int AS unbooked`),
    p.taskId, p.from, p.attempt, p.actor, p.reason, now, p.runId,
  );
  return rows[0].n === 1;
}
