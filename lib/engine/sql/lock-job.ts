import type { Prisma } from '../../db.ts';

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
 * earlier trigger that committed. Index: jobs primary key; `runs_active_idx`
 * (job_id, created_at) WHERE status IN (pending, running) for the active runs.
 */
export async function lockJob(tx: Prisma.TransactionClient, jobId: string): Promise<LockedJob | null> {
  const rows = await tx.$queryRawUnsafe<LockedJob[]>(
    `SELECT j.id, j.key, j.version, j.status::text AS status, j.block_strategy::text AS "blockStrategy",
            coalesce((SELECT jsonb_agg(jsonb_build_object('id', r.id, 'status', r.status) ORDER BY r.created_at, r.scheduled_for, r.id)
                        FROM runs r WHERE r.job_id = j.id::text AND r.status IN ('pending', 'running')), '[]'::jsonb) AS "activeRuns"
       FROM jobs j
      WHERE j.id = $1::uuid AND j.deleted_at IS NULL
      FOR UPDATE OF j`,
    jobId,
  );
  return rows[0] ?? null;
}
