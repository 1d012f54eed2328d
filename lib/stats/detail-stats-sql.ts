import type { Db } from '../db.ts';
import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT } from '../engine/stats.ts';

/** One aggregate over task_logs: a bucket (day or hour in a zone) and a handler, counted by lib/engine/stats.ts's rule. */
export interface DetailStatsRow {
  /** `YYYY-MM-DD` for a day, `YYYY-MM-DDTHH:00` (wall time in the zone) for an hour */
  bucket: string;
  handler: string;
  success: number;
  failure: number;
  timeout: number;
  deadLetter: number;
  totalDurationMs: number;
  maxDurationMs: number;
  totalLatenessMs: number;
  latenessCount: number;
  durationBuckets: number[];
}

/** What to aggregate: instants [start, end) of task_logs.created_at, bucketed in `timeZone`, optionally one job / some handlers. */
export interface DetailStatsParams {
  start: Date;
  end: Date;
  timeZone: string;
  granularity: 'day' | 'hour';
  jobId?: string;
  handlers?: string[];
}

/**
 * Aggregates task_logs with the engine's stats counting rule (lib/engine/stats.ts; the same
 * columns as handler_stats_daily): success / failure / timeout = `running -> success|failed|timeout`
 * rows (every finished attempt), dead_letter = `* -> dead` rows; duration = the finishing log's
 * detail.durationMs, clamped at 0, summed, max and bucketed with width_bucket over
 * DURATION_BUCKET_BOUNDS_MS; lateness = started_at - tasks.scheduled_for of first attempts
 * (started_at = log.created_at - durationMs). The bucket is the day or the hour of
 * `log.created_at AT TIME ZONE timeZone` (the engine stamps the log and the stats upsert with one `now`).
 * Bounded by time: task_logs_created_idx (created_at) range, then the tasks primary key; the
 * job and handler filters apply to the joined task. Used by the rebuild proof (whole days, every
 * handler) and by the per-job / hourly stats (lib/stats/get-stats-series.ts).
 */
export async function queryDetailStats(db: Db, p: DetailStatsParams): Promise<DetailStatsRow[]> {
  const bucketCols = Array.from(
    { length: DURATION_BUCKET_COUNT },
    (_, i) => `count(*) FILTER (WHERE finished AND dur IS NOT NULL AND width_bucket(GREATEST(0, dur), $4::bigint[]) = ${i})::int AS b${i}`,
  ).join(',\n           ');
  const bucket = p.granularity === 'hour' ? `to_char(date_trunc('hour', l.created_at AT TIME ZONE $3::text), 'YYYY-MM-DD"T"HH24:00')` : `to_char((l.created_at AT TIME ZONE $3::text)::date, 'YYYY-MM-DD')`;
  const rows = await db.$queryRawUnsafe<Record<string, unknown>[]>(
    `WITH l AS (
       SELECT ${bucket} AS d, t.handler, l.to_status, l.attempt, l.created_at, t.scheduled_for,
              (l.from_status = 'running' AND l.to_status IN ('success', 'failed', 'timeout')) AS finished,
              (l.detail->>'durationMs')::bigint AS dur
         FROM task_logs l
         JOIN tasks t ON t.id = l.task_id
        WHERE l.created_at >= $1::timestamptz
          AND l.created_at < $2::timestamptz
          AND ((l.from_status = 'running' AND l.to_status IN ('success', 'failed', 'timeout')) OR l.to_status = 'dead')
          AND ($5::text IS NULL OR t.job_id = $5::text)
          AND ($6::text[] IS NULL OR t.handler = ANY($6::text[]))
     ), late AS (
       SELECT *, GREATEST(0, round(extract(epoch FROM (created_at - dur * interval '1 millisecond' - scheduled_for)) * 1000))::bigint AS lateness
         FROM l
     )
     SELECT d, handler,
           count(*) FILTER (WHERE finished AND to_status = 'success')::int AS success,
           count(*) FILTER (WHERE finished AND to_status = 'failed')::int AS failure,
           count(*) FILTER (WHERE finished AND to_status = 'timeout')::int AS timeout,
           count(*) FILTER (WHERE to_status = 'dead')::int AS dead_letter,
           coalesce(sum(GREATEST(0, dur)) FILTER (WHERE finished), 0)::bigint AS total_duration_ms,
           coalesce(max(GREATEST(0, dur)) FILTER (WHERE finished), 0)::int AS max_duration_ms,
           coalesce(sum(lateness) FILTER (WHERE finished AND attempt = 1 AND dur IS NOT NULL AND scheduled_for IS NOT NULL), 0)::bigint AS total_lateness_ms,
           count(*) FILTER (WHERE finished AND attempt = 1 AND dur IS NOT NULL AND scheduled_for IS NOT NULL)::int AS lateness_count,
           ${bucketCols}
       FROM late
      GROUP BY d, handler
      ORDER BY d, handler`,
    p.start, p.end, p.timeZone, DURATION_BUCKET_BOUNDS_MS.map(String), p.jobId ?? null, p.handlers?.length ? p.handlers : null,
  );
  return rows.map((r) => ({
    bucket: String(r.d),
    handler: String(r.handler),
    success: Number(r.success),
    failure: Number(r.failure),
    timeout: Number(r.timeout),
    deadLetter: Number(r.dead_letter),
    totalDurationMs: Number(r.total_duration_ms),
    maxDurationMs: Number(r.max_duration_ms),
    totalLatenessMs: Number(r.total_lateness_ms),
    latenessCount: Number(r.lateness_count),
    durationBuckets: Array.from({ length: DURATION_BUCKET_COUNT }, (_, i) => Number(r[`b${i}`])),
  }));
}
