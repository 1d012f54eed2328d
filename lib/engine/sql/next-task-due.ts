import type { SqlClient } from '../../db.ts';

/**
 * The earliest schedule_at of a ready task (pending, no pending parents) with one of
 * `handlers`, or null when there is none: at or before now = claim now; later = a run created
 * ahead of its slot or a retry in backoff, so a claimer's safety pass sleeps until then
 * instead of claiming (docs/on-time.md). Routing is not checked here (a wake-up that finds
 * nothing claimable costs one empty claim).
 * Index: tasks_claim_idx (partial: only ready tasks, which an idle queue has few of).
 */
export async function nextTaskDue(db: SqlClient, p: { handlers: string[] }): Promise<Date | null> {
  if (p.handlers.length === 0) return null;
  const rows = await db.$queryRawUnsafe<{ at: Date | null }[]>(
    `SELECT min(schedule_at) AS at FROM tasks
      WHERE status = 'pending' AND pending_parents = 0 AND handler = ANY($1::text[])`,
    p.handlers,
  );
  return rows[0]?.at ?? null;
}
