import { preparedSql, type SqlClient } from '../../db.ts';

export interface LockedJob {
  id: string;
  key: string;
  version: number;
  status: 'active' | 'paused' | 'dead_letter';
  blockStrategy: 'discard_later' | 'serial_execution' | 'cover_early';
  /** its stagger window in seconds (lib/schedule/stagger.ts): a backfill reads it (backfill-runs.ts) */
  staggerSeconds: number;
  /** the oldest and newest active (pending/running) run, in (created_at, scheduled_for, id) order; null when none */
  oldestActive: string | null;
  newestActive: string | null;
  /** every active run, oldest first: listed only for a cover_early job (it cancels them all), else empty */
  activeIds: string[];
  /** `opts.followsRun` is an active run of this job */
  followsActive: boolean;
}

/**
 * Locks a live job row and reads what the block strategy needs of its active (pending/running)
 * runs: the oldest and the newest, whether `opts.followsRun` is one of them, and for a
 * cover_early job the list of all. A serial_execution job may have a long queue of runs (a
 * bulk trigger queues 1,000 at a time); reading two ends of runs_active_idx keeps a trigger's
 * cost independent of it.
 *
 * Lock: `FOR UPDATE` on the job row — every trigger of a job (tick, manual, API,
 * retry) serialises here, so the block strategy sees the active runs of every
 * earlier trigger that committed. Two statements on purpose: under READ
 * COMMITTED a statement's snapshot is taken before it waits for the row lock, so
 * a subquery in the locking statement would miss a run committed by the trigger
 * that held the lock; the second statement takes a fresh snapshot after the
 * lock is ours. Index: jobs primary key; `runs_active_idx` (job_id, created_at)
 * WHERE status IN (pending, running) for the active runs.
 * @param opts.followsRun a run id (uuid) or undefined
 */
export async function lockJob(tx: SqlClient, jobId: string, opts: { followsRun?: string } = {}): Promise<LockedJob | null> {
  const jobs = await tx.$queryRawUnsafe<Omit<LockedJob, 'oldestActive' | 'newestActive' | 'activeIds' | 'followsActive'>[]>(
    preparedSql('lock-job', `SELECT j.id, j.key, j.version, j.status::text AS status, j.block_strategy::text AS "blockStrategy",
            j.stagger_seconds AS "staggerSeconds"
       FROM jobs j
      WHERE j.id = $1::uuid AND j.deleted_at IS NULL
      FOR UPDATE OF j`),
    jobId,
  );
  const job = jobs[0];
  if (!job) return null;
  const [active] = await tx.$queryRawUnsafe<Pick<LockedJob, 'oldestActive' | 'newestActive' | 'activeIds' | 'followsActive'>[]>(
    // Each parameter is read through a sub-select: a custom plan then costs what the generic one
    // does (it cannot fold a NULL $3 or a false $2 away), so PostgreSQL keeps the generic plan
    // instead of planning the statement anew on every trigger.
    preparedSql('lock-job-active-runs', `SELECT
       (SELECT r.id::text FROM runs r WHERE r.job_id = (SELECT $1::text) AND r.status IN ('pending', 'running')
         ORDER BY r.created_at, r.scheduled_for, r.id LIMIT 1) AS "oldestActive",
       (SELECT r.id::text FROM runs r WHERE r.job_id = (SELECT $1::text) AND r.status IN ('pending', 'running')
         ORDER BY r.created_at DESC, r.scheduled_for DESC, r.id DESC LIMIT 1) AS "newestActive",
       CASE WHEN (SELECT $2::boolean) THEN
         (SELECT coalesce(array_agg(r.id::text ORDER BY r.created_at, r.scheduled_for, r.id), '{}')
            FROM runs r WHERE r.job_id = (SELECT $1::text) AND r.status IN ('pending', 'running'))
       ELSE '{}'::text[] END AS "activeIds",
       EXISTS (SELECT 1 FROM runs r WHERE r.id = (SELECT $3::uuid) AND r.job_id = (SELECT $1::text)
                  AND r.status IN ('pending', 'running')) AS "followsActive"`),
    job.id, job.blockStrategy === 'cover_early', opts.followsRun ?? null,
  );
  return { ...job, ...active! };
}
