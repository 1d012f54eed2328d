import type { Db } from '../../db.ts';

/**
 * The earliest schedule_at after `now` of a ready task (pending, no pending parents) with one
 * of `handlers`, or null: runs created ahead of their slot and retries in backoff. A claimer
 * that found nothing to claim sleeps until then (docs/on-time.md). Routing is not checked here
 * (a wake-up that finds nothing claimable costs one empty claim).
 * Index: tasks_claim_idx (partial: only ready tasks; those not yet due are few — look-ahead
 * runs and backoffs — since due ones are claimed).
 */
export async function nextTaskDue(db: Db, p: { handlers: string[] }, now: Date = new Date()): Promise<Date | null> {
  if (p.handlers.length === 0) return null;
  const rows = await db.$queryRawUnsafe<{ at: Date | null }[]>(
    `SELECT min(schedule_at) AS at FROM tasks
      WHERE status = 'pending' AND pending_parents = 0 AND schedule_at > $1::timestamptz AND handler = ANY($2::text[])`,
    now, p.handlers,
  );
  return rows[0]?.at ?? null;
}
