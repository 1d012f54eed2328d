import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { isoUtcSql } from './iso-utc.ts';
import { unsatisfiedParentsSql } from './release-joins.ts';

/**
 * The second half of a failed attempt: failed | timeout -> pending (retry:
 * attempt + 1, schedule_at = retryAt) or -> dead (retries used up), as a
 * compare-and-set on (id, status = from, attempt), with its task_logs row.
 * A retry NOTIFYs workers with its schedule_at (epoch ms), so they wake when it is due. A retry's
 * pending_parents is recounted from its parents' statuses (release-joins.ts unsatisfiedParentsSql):
 * 0, unless an operator re-opened a parent during the attempt, when it waits for that parent again
 * (the caller holds the run, so the count is exact).
 *
 * Lock: the task row, already held by this transaction since finish-attempt.
 * Index: tasks primary key.
 */
export async function retryOrBury(
  tx: SqlClient,
  p: { taskId: string; from: 'failed' | 'timeout'; attempt: number; to: 'pending' | 'dead'; retryAt: Date | null; message: string; delayMs: number | null },
  now: Date,
): Promise<boolean> {
  const rows = await tx.$queryRawUnsafe<{ n: number }[]>(
    preparedSql('retry-or-bury', `WITH me AS (
       SELECT id, scheduled_for FROM tasks WHERE id = $1::uuid
     ), rc AS (
       ${unsatisfiedParentsSql('me')}
     ), t AS (
       UPDATE tasks
          SET status = $4::task_status,
              attempt = CASE WHEN $4 = 'pending' THEN attempt + 1 ELSE attempt END,
              pending_parents = CASE WHEN $4 = 'pending' THEN coalesce((SELECT n FROM rc), 0) ELSE pending_parents END,
              schedule_at = CASE WHEN $4 = 'pending' THEN $5::timestamptz ELSE schedule_at END,
              locked_by = CASE WHEN $4 = 'pending' THEN NULL ELSE locked_by END,
              -- the next attempt has not started (reopen-tasks.ts clears it the same way)
              started_at = CASE WHEN $4 = 'pending' THEN NULL ELSE started_at END,
              completed_at = CASE WHEN $4 = 'pending' THEN NULL ELSE completed_at END,
              version = version + 1, updated_at = $7::timestamptz
        WHERE id = $1::uuid AND status = $2::task_status AND attempt = $3::int
       RETURNING id, run_id, scheduled_for, attempt, status
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, created_at)
       SELECT id, run_id, scheduled_for, attempt, $2::task_status, status, $6,
              CASE WHEN status = 'pending' THEN jsonb_build_object('retryAt', ${isoUtcSql('$5::timestamptz')}, 'delayMs', $8::bigint) END,
              $7::timestamptz
         FROM t
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM t)::int AS n, (SELECT count(*) FROM log)::int AS logged,
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', floor(extract(epoch FROM $5::timestamptz) * 1000)::bigint::text)
                                     FROM t WHERE status = 'pending') x)::int AS notified`),
    p.taskId, p.from, p.attempt, p.to, p.retryAt, p.message, now, p.delayMs,
  );
  return rows[0].n === 1;
}
