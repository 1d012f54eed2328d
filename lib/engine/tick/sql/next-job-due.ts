/**
 * The earliest due instant (next_run_at) of an active, live job after `after`, or null:
 * when the next job enters a ticker's look-ahead window, so it can sleep until then
 * (docs/on-time.md). Index: jobs_tick_idx (next_run_at), one probe.
 */
import type { Db } from '../../../db.ts';

export async function nextJobDue(db: Db, after: Date): Promise<Date | null> {
  const rows = await db.$queryRaw<{ at: Date | null }[]>`
    SELECT min(next_run_at) AS at FROM jobs
     WHERE status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL AND next_run_at > ${after}`;
  return rows[0]?.at ?? null;
}
