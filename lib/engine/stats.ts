/**
 * Handler statistics constants (docs/design.md §3 `handler_stats_daily`). The counting
 * rule itself — which attempt outcomes count as what, on which day, with which duration
 * and lateness — is written once, as SQL, in lib/engine/sql/stats-outcome.ts: the live
 * bookings and the rebuild (lib/stats/rebuild-stats.ts) are built from it.
 * Its invariants: success + failure + timeout = finished attempts = sum(duration_buckets),
 * and each counter equals a count of task_logs rows (running->success, running->failed,
 * running->timeout, *->dead) on that day.
 */

/**
 * Upper bounds (exclusive) of the duration histogram in ms. Bucket i counts
 * durations d with bounds[i-1] <= d < bounds[i] (bounds[-1] = 0; SQL width_bucket); the last
 * bucket, index bounds.length, counts d >= 300000 (5 min). So
 * `duration_buckets` has DURATION_BUCKET_BOUNDS_MS.length + 1 elements.
 */
export const DURATION_BUCKET_BOUNDS_MS = [10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000] as const;
export const DURATION_BUCKET_COUNT = DURATION_BUCKET_BOUNDS_MS.length + 1;

/**
 * The trigger of the runs that have no lateness: a backfill run's slot lies in the past on purpose
 * (docs/recovery.md "Backfill"), so its start says nothing about the scheduler being late. The
 * exception of the stats' lateness (sql/stats-outcome.ts latenessFromSql) and of a run's own
 * (runHasLateness).
 */
export const NO_LATENESS_TRIGGER = 'backfill';

/**
 * Whether a run of `trigger` has a lateness (its start − its slot: lib/runs/run-view.ts): every run
 * but a backfill run (NO_LATENESS_TRIGGER).
 */
export function runHasLateness(trigger: string): boolean {
  return trigger !== NO_LATENESS_TRIGGER;
}

/**
 * How many rows one (day, handler) is spread over. A completion adds its delta to
 * slot `pg_backend_pid() % STATS_SLOTS` (STATS_SLOT_SQL), so concurrent completions on
 * different connections rarely share a row lock — one shared row held to COMMIT made
 * all completions of a handler wait for each other's WAL flush. Readers sum the slots
 * (lib/stats/merge-slots.ts). Migration 20261129700000_stats_slots.
 */
export const STATS_SLOTS = 16;
/** SQL for this connection's slot. */
export const STATS_SLOT_SQL = `(pg_backend_pid() % ${STATS_SLOTS})`;

/**
 * SQL for the time zone whose calendar day buckets stats: the database setting
 * `stats.timezone` (default UTC), read by every booking statement itself
 * (migration 20261201200000_stats_timezone_setting; lib/stats/stats-zone.ts).
 */
export const STATS_TZ_SQL = 'tickflow_stats_tz()';
