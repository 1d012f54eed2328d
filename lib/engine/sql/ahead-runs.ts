import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * The job's runs created ahead of a slot that is still in the future: schedule runs still
 * `pending` whose tasks are all pending on their first attempt with schedule_at > now (none
 * can have been claimed: the claim waits for schedule_at). Locks those run rows FOR UPDATE (a
 * claim moving the run to running waits, or is waited for and the row re-checked).
 * Index: runs_active_idx (job_id, created_at) WHERE status IN (pending, running); tasks_run_idx.
 */
export async function selectAheadRuns(tx: SqlClient, p: { jobId: string }, now: Date): Promise<{ id: string; scheduleAt: Date }[]> {
  return tx.$queryRawUnsafe<{ id: string; scheduleAt: Date }[]>(
    preparedSql('select-ahead-runs', `SELECT r.id, x.first AS "scheduleAt"
       FROM runs r
       CROSS JOIN LATERAL (SELECT min(t.schedule_at) AS first, bool_and(t.status = 'pending' AND t.attempt = 1) AS untouched
                             FROM tasks t WHERE t.run_id = r.id) x
      WHERE r.job_id = $1 AND r.status = 'pending' AND r.trigger = 'schedule'
        AND x.untouched AND x.first > $2::timestamptz
      ORDER BY r.created_at
      FOR UPDATE OF r`),
    p.jobId, now,
  );
}

/**
 * Moves an active, live job's next_run_at back to `to` when that is earlier (LEAST), so the
 * tick fires a cancelled look-ahead slot again; a paused or deleted job is left alone (resume
 * recomputes next_run_at). Primary-key UPDATE on the job row the caller holds. The
 * jobs_notify_update trigger wakes the tickers. Returns next_run_at afterwards (null when unchanged).
 */
export async function rewindNextRunAt(tx: SqlClient, p: { jobId: string; to: Date }): Promise<Date | null> {
  const rows = await tx.$queryRawUnsafe<{ nextRunAt: Date | null }[]>(
    preparedSql('rewind-next-run-at', `UPDATE jobs SET next_run_at = LEAST(coalesce(next_run_at, $2::timestamptz), $2::timestamptz)
      WHERE id = $1::uuid AND status = 'active' AND deleted_at IS NULL
      RETURNING next_run_at AS "nextRunAt"`),
    p.jobId, p.to,
  );
  return rows[0]?.nextRunAt ?? null;
}
