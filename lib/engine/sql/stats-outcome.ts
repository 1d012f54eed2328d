/**
 * The handler-stats counting rule (constants: lib/engine/stats.ts; docs/design.md §3
 * `handler_stats_daily`), written once as SQL fragments shared by every statement
 * that books or recomputes the per-handler daily stats:
 * - record-handler-stats.ts (one attempt ended by endAttempt: any outcome, dead or not),
 * - complete-only-tasks.ts (a batch of successful only-tasks, one statement),
 * - lib/stats/rebuild-stats.ts (the recomputation from task_logs).
 * Because the live bookings and the rebuild are built from the same fragments,
 * `npm run stats:rebuild` can only report drift when rows were changed by hand.
 *
 * The rule, over "stats events" (one row per thing that counts):
 * - an event is a finished attempt (`outcome` success | failed | timeout; a lease
 *   expiry is a failed attempt) and/or a task that ended `dead` (`dead`);
 *   a cancelled attempt or a skipped task is no event;
 * - stat_date = the calendar date of the event's instant in the stats zone
 *   (STATS_TZ_SQL; the rebuild may name the zone itself);
 * - success / failure / timeout = finished attempts by outcome; dead_letter = dead tasks;
 * - duration (finished attempts only) = attemptDurationMsSql, clamped at 0: summed, max,
 *   and counted in the histogram bucket width_bucket(duration, DURATION_BUCKET_BOUNDS_MS);
 * - lateness = started_at - latenessFromSql (ms, clamped at 0, rounded) of finished first
 *   attempts that have both instants, summed with a count: from the later of the task's
 *   scheduled_for and its ready_at (a downstream step waits for its parents, which is not
 *   the scheduler being late), except in backfill runs, which have none (their slot is in
 *   the past on purpose).
 */
import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT, NO_LATENESS_TRIGGER, STATS_SLOT_SQL, STATS_TZ_SQL } from '../stats.ts';

/**
 * SQL of an attempt's duration in ms (bigint): `end - start`, rounded. The same expression
 * is the finishing task_logs row's detail.durationMs (finish-attempt.ts, complete-only-tasks.ts),
 * which the rebuild reads back.
 * @param end SQL expression of the end instant (timestamptz)
 * @param start SQL expression of tasks.started_at (timestamptz)
 */
export function attemptDurationMsSql(end: string, start: string): string {
  return `(extract(epoch FROM (${end} - ${start})) * 1000)::bigint`;
}

/**
 * SQL of the instant a task's lateness is measured from (timestamptz, or NULL for none): the
 * later of its scheduled_for (the run's slot) and its ready_at (when its parents released it,
 * readyAtOnReleaseSql; NULL for a step without parents, which GREATEST ignores), except in a
 * backfill run, whose slot lies in the past on purpose (docs/recovery.md "Backfill"), so its
 * start says nothing about the scheduler being late. Waiting for a serial run's turn
 * (block strategy serial_execution) does count: that run is late against its slot.
 * The one definition for the handler stats (every statement built from statsEventsSql) and the
 * workers' lateness histogram (the claim's ClaimedTask.latenessFrom).
 * @param task the alias of a tasks row (reads run_id and scheduled_for)
 * @param run the alias of that task's runs row when the statement already joins it; without
 *   it, a runs lookup by primary key
 * @param opts.pruned the lookup also matches the run's scheduled_for, so PostgreSQL reads one
 *   partition of runs instead of probing each (docs/operations.md "History partitions"): for
 *   reads over many tasks (the stats series and rebuild). Not inside an UPDATE of tasks (its
 *   RETURNING or WHERE): there the embedded PostgreSQL 18.4 crashed (SIGSEGV) with it under
 *   load, in tests/integration/trigger-race.test.ts, while PostgreSQL 15 did not.
 */
export function latenessFromSql(task: string, run?: string, opts: { pruned?: boolean } = {}): string {
  const key = opts.pruned ? ` AND lr.scheduled_for = ${task}.scheduled_for` : '';
  const trigger = run ? `${run}.trigger` : `(SELECT lr.trigger FROM runs lr WHERE lr.id = ${task}.run_id${key})`;
  return `(CASE WHEN ${trigger} = '${NO_LATENESS_TRIGGER}' THEN NULL ELSE GREATEST(${task}.scheduled_for, ${task}.ready_at) END)`;
}

/**
 * SQL of a task's ready_at in an UPDATE that sets its pending_parents (a release by its parents,
 * or an operator re-open): `now` when the new counter is 0 and the task has not started its
 * first attempt, else unchanged. Frozen once the first attempt starts, so the stats rebuild
 * (lib/stats/detail-stats-sql.ts), which reads it back from the row, counts that attempt's
 * lateness as it was booked. The serial-execution gate (release-serial-run.ts) does not set it.
 * @param task the alias of the tasks row being updated (its old values: attempt, started_at)
 * @param pendingParents SQL of the row's new pending_parents
 * @param now SQL of the statement's instant (timestamptz)
 */
export function readyAtOnReleaseSql(task: string, pendingParents: string, now: string): string {
  return `CASE WHEN ${pendingParents} = 0 AND ${task}.attempt = 1 AND ${task}.started_at IS NULL THEN ${now} ELSE ${task}.ready_at END`;
}

/** SQL expressions (over the caller's FROM clause) describing one stats event each. */
export interface StatsEventColumns {
  /** the instant the event was recorded (timestamptz): decides its day */
  at: string;
  handler: string;
  /** 'success' | 'failed' | 'timeout' (text) when the row is a finished attempt, else NULL */
  outcome: string;
  /** boolean: the task ended dead with this event */
  dead: string;
  /** the attempt's duration in ms (bigint, attemptDurationMsSql), NULL when unknown */
  durationMs: string;
  /** the attempt number (int) */
  attempt: string;
  /** tasks.started_at of the attempt (timestamptz) */
  startedAt: string;
  /** the instant lateness is measured from (timestamptz or NULL): latenessFromSql of the task */
  latenessFrom: string;
}

const BOUNDS_SQL = `'{${DURATION_BUCKET_BOUNDS_MS.join(',')}}'::bigint[]`;

/**
 * A SELECT of stats events `(stat_date, at, handler, outcome, dead, dur, lateness)`: the
 * per-event half of the rule (day, duration clamp, lateness of first attempts).
 * @param c the columns, as SQL over `from`
 * @param from the FROM/WHERE clause the columns read (may be empty for one row of parameters)
 * @param zone SQL of the stats zone (text), default the database setting
 */
export function statsEventsSql(c: StatsEventColumns, from: string, zone: string = STATS_TZ_SQL): string {
  return `SELECT (ev.at AT TIME ZONE ${zone})::date AS stat_date, ev.at, ev.handler, ev.outcome, ev.dead,
              CASE WHEN ev.outcome IS NOT NULL THEN GREATEST(0, ev.dur) END AS dur,
              CASE WHEN ev.outcome IS NOT NULL AND ev.attempt = 1 AND ev.started_at IS NOT NULL AND ev.lateness_from IS NOT NULL
                   THEN GREATEST(0, round(extract(epoch FROM (ev.started_at - ev.lateness_from)) * 1000))::bigint END AS lateness
         FROM (SELECT ${c.at} AS at, (${c.handler})::text AS handler, (${c.outcome})::text AS outcome, (${c.dead})::boolean AS dead,
                      (${c.durationMs})::bigint AS dur, (${c.attempt})::int AS attempt,
                      (${c.startedAt})::timestamptz AS started_at, (${c.latenessFrom})::timestamptz AS lateness_from
                 ${from}) ev`;
}

/**
 * handler_stats_daily rows (one per stat_date and handler, without slot) from a SELECT
 * of stats events (statsEventsSql): the counting half of the rule.
 */
export function statsDailyRowsSql(events: string): string {
  return statsRowsSql(events, 'e.stat_date', 'stat_date');
}

/**
 * The counting half of the rule grouped by any bucket of the events: one row per (bucket,
 * handler) with the handler_stats_daily counters. statsDailyRowsSql is the day bucket; the
 * per-hour and per-job series (lib/stats/detail-stats-sql.ts) pass their own.
 * @param events a SELECT of stats events (statsEventsSql), read as `e`
 * @param bucket SQL over `e` of the bucket (e.g. `e.stat_date`, or an hour of `e.at`)
 * @param as the bucket column's name in the result
 */
export function statsRowsSql(events: string, bucket: string, as: string): string {
  const buckets = Array.from(
    { length: DURATION_BUCKET_COUNT },
    (_, i) => `count(*) FILTER (WHERE width_bucket(e.dur, ${BOUNDS_SQL}) = ${i})::int`,
  ).join(', ');
  return `SELECT ${bucket} AS ${as}, e.handler,
              count(*) FILTER (WHERE e.outcome = 'success')::int AS success,
              count(*) FILTER (WHERE e.outcome = 'failed')::int AS failure,
              count(*) FILTER (WHERE e.outcome = 'timeout')::int AS timeout,
              count(*) FILTER (WHERE e.dead)::int AS dead_letter,
              coalesce(sum(e.dur), 0)::bigint AS total_duration_ms,
              coalesce(max(e.dur), 0)::int AS max_duration_ms,
              coalesce(sum(e.lateness), 0)::bigint AS total_lateness_ms,
              count(e.lateness)::int AS lateness_count,
              ARRAY[${buckets}]::int[] AS duration_buckets
         FROM (${events}) e
        GROUP BY 1, e.handler`;
}

/**
 * The upsert adding the daily rows of `events` to handler_stats_daily, in this connection's
 * slot (STATS_SLOT_SQL), rows in (stat_date, handler) order so concurrent batches lock them in
 * one order (lib/engine/lock-order.ts). Add `RETURNING …` to use it as a CTE.
 * Lock: the (stat_date, handler, slot) rows; index: the primary key via ON CONFLICT.
 * @param events a SELECT of stats events (statsEventsSql)
 * @param now SQL of the booking instant (timestamptz): updated_at
 */
export function statsUpsertFromEventsSql(events: string, now: string): string {
  return `INSERT INTO handler_stats_daily AS h (stat_date, handler, slot, success, failure, timeout, dead_letter, total_duration_ms,
                                          max_duration_ms, total_lateness_ms, lateness_count, duration_buckets, updated_at)
     SELECT d.stat_date, d.handler, ${STATS_SLOT_SQL}, d.success, d.failure, d.timeout, d.dead_letter, d.total_duration_ms,
            d.max_duration_ms, d.total_lateness_ms, d.lateness_count, d.duration_buckets, ${now}
       FROM (${statsDailyRowsSql(events)}) d
      ORDER BY d.stat_date, d.handler
     ON CONFLICT (stat_date, handler, slot) DO UPDATE SET
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
}
