import { preparedSql, type Prisma } from '../../db.ts';

export interface LockedJob {
  id: string;
  key: string;
  version: number;
  status: 'active' | 'paused' | 'dead_letter';
  blockStrategy: 'discard_later' | 'serial_execution' | 'cover_early';
  activeRuns: { id: string; status: 'pending' | 'running' }[];
}

/**
 * Locks a live job row and lists its active runs (pending/running, oldest first).
 *
 * Lock: `FOR UPDATE` on the job row — every trigger of a job (tick, manual, API,
 * retry) serialises here, so the block strategy sees the active runs of every
 * earlier trigger that committed. Two statements on purpose: under READ
 * COMMITTED a statement's snapshot is taken before it waits for the row lock, so
 * a subquery in the locking statement would miss a run committed by the trigger
 * that held the lock; the second statement takes a fresh snapshot after the
 * lock is ours. Index: jobs primary key; `runs_active_idx` (job_id, created_at)
 * WHERE status IN (pending, running) for the active runs.
 */
export async function lockJob(tx: Prisma.TransactionClient, jobId: string): Promise<LockedJob | null> {
  const jobs = await tx.$queryRawUnsafe<Omit<LockedJob, 'activeRuns'>[]>(
    preparedSql('lock-job', `SELECT j.id, j.key, j.version, j.status::text AS status, j.block_strategy::text AS "blockStrategy"
       FROM jobs j
      WHERE j.id = $1::uuid AND j.deleted_at IS NULL
      FOR UPDATE OF j`),
    jobId,
  );
  const job = jobs[0];
  if (!job) return null;
  const activeRuns = await tx.$queryRawUnsafe<LockedJob['activeRuns']>(
    preparedSql('lock-job-active-runs', `SELECT r.id, r.status::text AS status
       FROM runs r
      WHERE r.job_id = $1 AND r.status IN ('pending', 'running')
      ORDER BY r.created_at, r.scheduled_for, r.id`),
    job.id,
  );
  return { ...job, activeRuns };
}
