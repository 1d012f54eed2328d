/**
 * Locks up to `limit` due jobs for one tick transaction.
 *
 * Due = active, not deleted, next_run_at <= now: exactly the predicate of the
 * partial index jobs_tick_idx (next_run_at) WHERE status = 'active' AND
 * deleted_at IS NULL AND next_run_at IS NOT NULL, so the scan reads only due
 * rows in next_run_at order. FOR UPDATE SKIP LOCKED: N tickers running at once
 * each take a disjoint set of jobs and never wait on each other; a job row
 * stays locked until its runs are created and next_run_at advanced in the same
 * transaction, so a slot is fired at most once (runs_schedule_fire_uniq is the
 * backstop). A row whose next_run_at was advanced by another ticker while we
 * waited is not returned (SKIP LOCKED skips it; a later scan re-checks the predicate).
 */
import type { Db } from '../../../db.ts';

export interface DueJobRow {
  id: string;
  key: string;
  schedule_kind: 'cron' | 'interval' | 'once' | 'manual';
  cron_expression: string | null;
  timezone: string;
  interval_seconds: number | null;
  run_at: Date | null;
  start_at: Date | null;
  end_at: Date | null;
  misfire_policy: 'skip' | 'fire_once' | 'fire_all';
  misfire_max_catchup: number;
  stagger_seconds: number;
  next_run_at: Date;
  created_at: Date;
}

/**
 * `input.horizon` (default `now`): also lock jobs due up to this instant, for the tick's
 * look-ahead (docs/on-time.md); they come after every job already due (next_run_at order).
 *
 * `input.wait` (a catch-up before a worker claims: TickOptions.waitForLockedJobs): a due job that
 * another transaction holds — another worker's tick, this worker's own tick loop, an operator's
 * edit — is waited for instead of skipped, so that when the catch-up is over every job that was
 * due has been decided by a committed tick, and a run created ahead of a slot missed during the
 * downtime has been withdrawn before this worker's first claim could start it late
 * (docs/on-time.md "Look-ahead firing", row "misfire"). The jobs are picked in next_run_at order
 * without a lock, then locked in ascending id (lock-order.ts: several job rows, ascending id) with
 * the due condition checked again on each row as locked (a job another tick advanced meanwhile is
 * no longer due and not returned).
 * @returns the locked rows in next_run_at order, and how many were picked (`picked`: equal to
 *   `limit` when more due jobs may wait, even if some of those picked were advanced meanwhile)
 */
export async function lockDueJobs(db: Db, input: { limit: number; horizon?: Date; wait?: boolean }, now: Date = new Date()): Promise<DueJobRow[] & { picked?: number }> {
  const horizon = input.horizon && input.horizon > now ? input.horizon : now;
  if (input.wait) {
    const picked = await db.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM jobs
       WHERE status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL AND next_run_at <= ${horizon}
       ORDER BY next_run_at, id
       LIMIT ${input.limit}`;
    if (picked.length === 0) return Object.assign([], { picked: 0 });
    const rows = await db.$queryRaw<DueJobRow[]>`
      WITH l AS (
        SELECT id::text AS id, key, schedule_kind::text AS schedule_kind, cron_expression, timezone, interval_seconds,
               run_at, start_at, end_at, misfire_policy::text AS misfire_policy, misfire_max_catchup,
               stagger_seconds, next_run_at, created_at
          FROM jobs
         WHERE id = ANY(${picked.map((r) => r.id)}::uuid[])
           AND status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL AND next_run_at <= ${horizon}
         ORDER BY id
           FOR UPDATE
      )
      SELECT * FROM l ORDER BY next_run_at, id`;
    return Object.assign(rows, { picked: picked.length });
  }
  return db.$queryRaw<DueJobRow[]>`
    SELECT id::text AS id, key, schedule_kind::text AS schedule_kind, cron_expression, timezone, interval_seconds,
           run_at, start_at, end_at, misfire_policy::text AS misfire_policy, misfire_max_catchup,
           stagger_seconds, next_run_at, created_at
      FROM jobs
     WHERE status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL
       AND next_run_at <= ${horizon}
     ORDER BY next_run_at
     LIMIT ${input.limit}
       FOR UPDATE SKIP LOCKED`;
}
