/**
 * The earliest due instant (next_run_at) of an active, live job, leaving out `exclude` (job ids
 * a ticker already knows are waiting for their slot), or null: when the next job enters a
 * ticker's look-ahead window, so it can sleep until then (docs/on-time.md).
 * Index: jobs_tick_idx (next_run_at), walked from its start (`exclude` is short).
 */
import type { Db } from '../../../db.ts';

export async function nextJobDue(db: Db, opts: { exclude?: string[] } = {}): Promise<Date | null> {
  const rows = await db.$queryRawUnsafe<{ at: Date | null }[]>(
    `SELECT min(next_run_at) AS at FROM jobs
      WHERE status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL AND id <> ALL($1::uuid[])`,
    opts.exclude ?? [],
  );
  return rows[0]?.at ?? null;
}
