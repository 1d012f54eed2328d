import type { SqlClient } from '../../db.ts';
import { attemptDurationMsSql, statsEventsSql, statsUpsertFromEventsSql } from './stats-outcome.ts';

/** One ended attempt as the handler stats count it (the rule: stats-outcome.ts). */
export interface StatsDelta {
  handler: string;
  /** how the attempt finished */
  outcome: 'success' | 'failed' | 'timeout';
  /** the task ended dead with this attempt (retries used up, or not retryable) */
  dead: boolean;
  attempt: number;
  /** tasks.started_at of the attempt; null when unknown (no duration, no lateness) */
  startedAt: Date | null;
  /** the instant the attempt's lateness is measured from (stats-outcome.ts latenessFromSql); null for none */
  latenessFrom: Date | null;
}

/**
 * Adds one ended attempt to handler_stats_daily with the counting rule of stats-outcome.ts,
 * as SQL text with its parameters numbered from `first`, so the engine can run it standalone
 * or as the last CTE of finalise-run's statement (one round trip fewer on the common path).
 * The attempt ended at `now`: its day in the stats zone, its duration `now - startedAt`.
 *
 * Lock: the (stat_date, handler, slot) row — shared by the completions of a
 * handler that day on connections with the same slot (STATS_SLOTS), so the
 * engine still issues this statement last in its transaction to hold the lock
 * only until COMMIT. Index: the primary key (stat_date, handler, slot) via ON CONFLICT.
 */
export function statsUpsertSql(d: StatsDelta, now: Date, first: number): { sql: string; params: unknown[] } {
  const $ = (i: number) => `$${first + i}`;
  const at = `${$(0)}::timestamptz`;
  const startedAt = `${$(5)}::timestamptz`;
  const events = statsEventsSql({
    at,
    handler: `${$(1)}::text`,
    outcome: `${$(2)}::text`,
    dead: `${$(3)}::boolean`,
    durationMs: attemptDurationMsSql(at, startedAt),
    attempt: `${$(4)}::int`,
    startedAt,
    latenessFrom: `${$(6)}::timestamptz`,
  }, '');
  return {
    sql: statsUpsertFromEventsSql(events, at),
    params: [now, d.handler, d.outcome, d.dead, d.attempt, d.startedAt, d.latenessFrom],
  };
}

/** Standalone form of statsUpsertSql (used when the run is not being finalised in the same transaction). */
export async function recordHandlerStats(tx: SqlClient, d: StatsDelta, now: Date): Promise<void> {
  const { sql, params } = statsUpsertSql(d, now, 1);
  await tx.$executeRawUnsafe(sql, ...params);
}
