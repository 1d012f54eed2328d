import type { SqlClient } from '../../db.ts';

export interface CoveredSlot {
  scheduledFor: Date;
  runId: string;
  trigger: string;
  status: string;
}

/**
 * The slots among `slots` that already have a run of the job from the
 * schedule or a backfill, other than a `skipped` record (a misfired or
 * discarded slot never ran, so a backfill may run it). Read-only; callers that
 * then insert hold the job row (lock-job.ts) so no trigger of the job races them.
 * Index: runs_schedule_fire_uniq / runs_backfill_slot_uniq (job_id, scheduled_for).
 */
export async function coveredSlots(db: SqlClient, p: { jobId: string; slots: Date[] }): Promise<CoveredSlot[]> {
  if (p.slots.length === 0) return [];
  return db.$queryRawUnsafe<CoveredSlot[]>(
    `SELECT DISTINCT ON (scheduled_for) scheduled_for AS "scheduledFor", id AS "runId", trigger::text AS trigger, status::text AS status
       FROM runs
      WHERE job_id = $1 AND scheduled_for = ANY($2::timestamptz[]) AND trigger IN ('schedule', 'backfill') AND status <> 'skipped'
      ORDER BY scheduled_for, created_at`,
    p.jobId, p.slots,
  );
}
