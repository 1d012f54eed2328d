import type { Prisma } from '../../db.ts';
import { DURATION_BUCKET_COUNT, durationBucket, STATS_SLOT_SQL, STATS_TZ_SQL } from '../stats.ts';

export interface StatsDelta {
  handler: string;
  success: number;
  failure: number;
  timeout: number;
  deadLetter: number;
  /** the attempt's duration in ms, null when no attempt finished in this delta */
  durationMs: number | null;
  /** started_at - scheduled_for of a first attempt, else null */
  latenessMs: number | null;
}

/**
 * The ON CONFLICT half of every handler_stats_daily upsert (this file's and
 * complete-only-tasks.ts's): adds a delta row to the row of its day, handler and slot.
 */
export const STATS_ON_CONFLICT_SQL = `ON CONFLICT (stat_date, handler, slot) DO UPDATE SET
       success = h.success + EXCLUDED.success,
       failure = h.failure + EXCLUDED.failure,
       timeout = h.timeout + EXCLUDED.timeout,
       dead_letter = h.dead_letter + EXCLUDED.dead_letter,
       total_duration_ms = h.total_duration_ms + EXCLUDED.total_duration_ms,
       max_duration_ms = GREATEST(h.max_duration_ms, EXCLUDED.max_duration_ms),
       total_lateness_ms = h.total_lateness_ms + EXCLUDED.total_lateness_ms,
       lateness_count = h.lateness_count + EXCLUDED.lateness_count,
       duration_buckets = (SELECT array_agg(coalesce(h.duration_buckets[i], 0) + coalesce(EXCLUDED.duration_buckets[i], 0) ORDER BY i)
                             FROM generate_series(1, GREATEST(cardinality(h.duration_buckets), cardinality(EXCLUDED.duration_buckets))) i),
       updated_at = EXCLUDED.updated_at`;

/**
 * Adds one outcome to handler_stats_daily (counting rule: lib/engine/stats.ts), as SQL
 * text with its parameters numbered from `first`, so the engine can run it standalone
 * or as the last CTE of finalise-run's statement (one round trip fewer on the common path).
 * stat_date = the calendar date of `now` in the stats zone setting, computed in SQL (STATS_TZ_SQL).
 *
 * Lock: the (stat_date, handler, slot) row — shared by the completions of a
 * handler that day on connections with the same slot (STATS_SLOTS), so the
 * engine still issues this statement last in its transaction to hold the lock
 * only until COMMIT. Index: the primary key (stat_date, handler, slot) via ON CONFLICT.
 */
export function statsUpsertSql(d: StatsDelta, now: Date, first: number): { sql: string; params: unknown[] } {
  const buckets = new Array<number>(DURATION_BUCKET_COUNT).fill(0);
  if (d.durationMs !== null) buckets[durationBucket(d.durationMs)] = 1;
  const duration = d.durationMs === null ? 0 : Math.max(0, Math.round(d.durationMs));
  const $ = (i: number) => `$${first + i}`;
  const sql = `INSERT INTO handler_stats_daily AS h (stat_date, handler, slot, success, failure, timeout, dead_letter, total_duration_ms,
                                          max_duration_ms, total_lateness_ms, lateness_count, duration_buckets, updated_at)
     VALUES ((${$(0)}::timestamptz AT TIME ZONE ${STATS_TZ_SQL})::date, ${$(1)}::text, ${STATS_SLOT_SQL}, ${$(2)}::int, ${$(3)}::int, ${$(4)}::int, ${$(5)}::int,
             ${$(6)}::bigint, ${$(6)}::int, ${$(7)}::bigint, ${$(8)}::int, ${$(9)}::int[], ${$(0)}::timestamptz)
     ${STATS_ON_CONFLICT_SQL}`;
  const params = [now, d.handler, d.success, d.failure, d.timeout, d.deadLetter, duration,
    d.latenessMs === null ? 0 : Math.max(0, Math.round(d.latenessMs)), d.latenessMs === null ? 0 : 1, buckets];
  return { sql, params };
}

/** Standalone form of statsUpsertSql (used when the run is not being finalised in the same transaction). */
export async function recordHandlerStats(tx: Prisma.TransactionClient, d: StatsDelta, now: Date): Promise<void> {
  const { sql, params } = statsUpsertSql(d, now, 1);
  await tx.$executeRawUnsafe(sql, ...params);
}
