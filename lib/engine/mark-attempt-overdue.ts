import { preparedSql, type Db, type Prisma } from '../db.ts';

/**
 * Records that a running attempt is past its timeout while its handler has not
 * returned ("timed out, still running", docs/engine.md "Timeouts"): sets
 * tasks.timed_out_at and writes a running -> running task_logs row saying so.
 * The task stays `running` under its lease, so it keeps its resource key
 * (its running_resources row) and its run stays open (the job's
 * serial_execution turn); the worker records the attempt as `timeout` when the
 * handler finally returns (completeTask).
 *
 * Compare-and-set on (id, running, attempt, locked_by): a task cancelled or
 * reclaimed meanwhile is left alone. One autocommit statement; lock: the task row.
 * @returns whether the task was marked
 */
export async function markAttemptOverdue(
  db: Db,
  input: { taskId: string; attempt: number; nodeId: string; timeoutSeconds: number },
  now: Date = new Date(),
): Promise<boolean> {
  const rows = await (db as Prisma.TransactionClient).$queryRawUnsafe<{ n: number }[]>(
    preparedSql('mark-attempt-overdue', `WITH t AS (
       UPDATE tasks SET timed_out_at = $4::timestamptz, updated_at = $4::timestamptz
        WHERE id = $1::uuid AND status::text = 'running' AND attempt = $2::int AND locked_by = $3 AND timed_out_at IS NULL
       RETURNING id, run_id, scheduled_for, attempt, locked_by
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'running', 'running',
              'timed out after ' || $5::int || 's, still running: the handler ignores its abort; its slot, resource key and serial turn stay held until it returns',
              jsonb_build_object('timedOut', true, 'timeoutSeconds', $5::int), locked_by, $4::timestamptz
         FROM t
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM t)::int AS n, (SELECT count(*) FROM log)::int AS logged`),
    input.taskId, input.attempt, input.nodeId, now, input.timeoutSeconds,
  );
  return rows[0]?.n === 1;
}
