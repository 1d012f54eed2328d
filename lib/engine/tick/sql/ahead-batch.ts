/**
 * Set-based helpers of the tick's look-ahead batch (run-tick.ts): which of the locked jobs have
 * an active run, and moving many jobs' next_run_at in one statement.
 */
import type { Prisma } from '../../../db.ts';

/**
 * The ids of the given jobs that have an active (pending/running) run. Must run as its own
 * statement after the job rows are locked (lockDueJobs): READ COMMITTED then gives it a snapshot
 * that includes every run committed by a trigger that held a job lock before (as lock-job.ts).
 * Index: runs_active_idx (job_id, created_at) WHERE status IN (pending, running).
 */
export async function jobsWithActiveRuns(tx: Prisma.TransactionClient, jobIds: string[]): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const rows = await tx.$queryRawUnsafe<{ job_id: string }[]>(
    `SELECT DISTINCT job_id FROM runs WHERE job_id = ANY($1::text[]) AND status IN ('pending', 'running')`,
    jobIds,
  );
  return new Set(rows.map((r) => r.job_id));
}

/**
 * advance-job.ts for many jobs in one statement: next_run_at, last_error cleared, and `pause`
 * turns an exhausted schedule into `paused` (by 'system'). Rows are held by the tick.
 */
export async function advanceJobs(
  tx: Prisma.TransactionClient,
  items: { jobId: string; nextRunAt: Date | null; pause: boolean }[],
  now: Date,
): Promise<void> {
  if (items.length === 0) return;
  await tx.$executeRawUnsafe(
    `UPDATE jobs
        SET next_run_at = x.next, last_error = NULL,
            status = CASE WHEN x.pause THEN 'paused'::job_status ELSE jobs.status END,
            updated_at = CASE WHEN x.pause THEN $2::timestamptz ELSE jobs.updated_at END,
            updated_by = CASE WHEN x.pause THEN 'system' ELSE jobs.updated_by END
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, next timestamptz, pause boolean)
      WHERE jobs.id = x.id`,
    JSON.stringify(items.map((i) => ({ id: i.jobId, next: i.nextRunAt ? i.nextRunAt.toISOString() : null, pause: i.pause }))),
    now,
  );
}
