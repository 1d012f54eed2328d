import type { Db } from '../db.ts';
import { latenessFromSql, statsEventsSql, statsRowsSql } from '../engine/sql/stats-outcome.ts';

/** One aggregate over task_logs: a bucket (day or hour in a zone) and a handler, counted by the rule in lib/engine/sql/stats-outcome.ts. */
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
 * Aggregates task_logs with the handler-stats counting rule, built from its one definition
 * (lib/engine/sql/stats-outcome.ts, the same fragments the engine books with): the events are
 * the finishing `running -> success|failed|timeout` rows and the `* -> dead` rows, the
 * attempt's duration is the finishing row's detail.durationMs, its start that instant minus
 * the duration. The bucket is the day or the hour of `log.created_at AT TIME ZONE timeZone`
 * (the engine stamps the log and the stats upsert with one `now`).
 * Bounded by time: task_logs_created_idx (created_at) range, then the tasks primary key; the
 * job and handler filters apply to the joined task. Used by the rebuild proof (whole days, every
 * handler) and by the per-job / hourly stats (lib/stats/get-stats-series.ts).
 */
export async function queryDetailStats(db: Db, p: DetailStatsParams): Promise<DetailStatsRow[]> {
  const finished = `(l.from_status = 'running' AND l.to_status IN ('success', 'failed', 'timeout'))`;
  const durationMs = `(l.detail->>'durationMs')::bigint`;
  const events = statsEventsSql(
    {
      at: 'l.created_at',
      handler: 't.handler',
      outcome: `CASE WHEN ${finished} THEN l.to_status::text END`,
      dead: `l.to_status = 'dead'`,
      durationMs,
      attempt: 'l.attempt',
      startedAt: `l.created_at - ${durationMs} * interval '1 millisecond'`,
      latenessFrom: latenessFromSql('t', undefined, { pruned: true }),
    },
    `FROM task_logs l
       JOIN tasks t ON t.id = l.task_id AND t.scheduled_for = l.scheduled_for
      WHERE l.created_at >= $1::timestamptz
        AND l.created_at < $2::timestamptz
        AND (${finished} OR l.to_status = 'dead')
        AND ($4::text IS NULL OR t.job_id = $4::text)
        AND ($5::text[] IS NULL OR t.handler = ANY($5::text[]))`,
    '$3::text',
  );
  const bucket = p.granularity === 'hour' ? `to_char(date_trunc('hour', e.at AT TIME ZONE $3::text), 'YYYY-MM-DD"T"HH24:00')` : `to_char(e.stat_date, 'YYYY-MM-DD')`;
  const rows = await db.$queryRawUnsafe<Record<string, unknown>[]>(
    `SELECT r.* FROM (${statsRowsSql(events, bucket, 'bucket')}) r ORDER BY r.bucket, r.handler`,
    p.start, p.end, p.timeZone, p.jobId ?? null, p.handlers?.length ? p.handlers : null,
  );
  return rows.map((r) => ({
    bucket: String(r.bucket),
    handler: String(r.handler),
    success: Number(r.success),
    failure: Number(r.failure),
    timeout: Number(r.timeout),
    deadLetter: Number(r.dead_letter),
    totalDurationMs: Number(r.total_duration_ms),
    maxDurationMs: Number(r.max_duration_ms),
    totalLatenessMs: Number(r.total_lateness_ms),
    latenessCount: Number(r.lateness_count),
    durationBuckets: (r.duration_buckets as unknown[]).map(Number),
  }));
}
