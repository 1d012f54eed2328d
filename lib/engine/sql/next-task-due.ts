import type { Db } from '../../db.ts';

/**
 * The earliest schedule_at of a ready task (pending, no pending parents) with one of
 * `handlers`, or null when there is none: at or before now = claim now; later = a run created
 * ahead of its slot or a retry in backoff, so a claimer's safety pass sleeps until then
 * instead of claiming (docs/on-time.md). Epoch milliseconds rounded up. Routing is not checked here (a wake-up that finds
 * nothing claimable costs one empty claim).
 * Index: tasks_claim_idx (partial: only ready tasks, which an idle queue has few of).
 */
export async function nextTaskDue(db: Db, p: { handlers: string[] }): Promise<Date | null> {
  if (p.handlers.length === 0) return null;
  // Rounded up to the millisecond: a Date truncates microseconds, and a claim at the truncated
  // instant would not yet find the task.
  const rows = await db.$queryRawUnsafe<{ ms: bigint | null }[]>(
    `SELECT ceil(extract(epoch FROM min(schedule_at)) * 1000)::bigint AS ms FROM tasks
      WHERE status = 'pending' AND pending_parents = 0 AND handler = ANY($1::text[])`,
    p.handlers,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? null : new Date(Number(ms));
}
