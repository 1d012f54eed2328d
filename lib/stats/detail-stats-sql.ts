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
 *
 * How it reads (docs/operations.md "History at scale"):
 * - one job: from that job's runs (runs_job_idx, every run slotted before `end`: a backfill's or
 *   a retry's logs come long after its slot, so no lower bound), their logs by run
 *   (task_logs_run_idx, one week's partition per run) filtered to [start, end): the cost follows
 *   the job's retained runs, not everybody's history;
 * - every job: the logs of [start, end) by their time (task_logs_created_idx) joined to their
 *   tasks as PostgreSQL plans it. A probe of each log's task by key was measured and is not used:
 *   each probe opens every weekly partition of tasks again (docs/engine.md "The hot path"), and
 *   48 hours of a 400,000-run history took 7 s that way against 0.4–0.5 s hashed.
 */
export async function queryDetailStats(db: Db, p: DetailStatsParams): Promise<DetailStatsRow[]> {
  const finished = `(l.from_status = 'running' AND l.to_status IN ('success', 'failed', 'timeout'))`;
  const durationMs = `(l.detail->>'durationMs')::bigint`;
  const logFilter = `l.created_at >= $1::timestamptz
        AND l.created_at < $2::timestamptz
        AND (${finished} OR l.to_status = 'dead')`;
  const from = p.jobId
    ? `FROM runs r
       JOIN task_logs l ON l.run_id = r.id AND l.scheduled_for = r.scheduled_for
       JOIN tasks t ON t.id = l.task_id AND t.scheduled_for = l.scheduled_for
      WHERE r.job_id = $4::text AND r.scheduled_for < $2::timestamptz + interval '1 day'
        AND ${logFilter}
        AND ($5::text[] IS NULL OR t.handler = ANY($5::text[]))`
    : `FROM task_logs l
       JOIN tasks t ON t.id = l.task_id AND t.scheduled_for = l.scheduled_for
      WHERE ${logFilter}
        AND $4::text IS NULL
        AND ($5::text[] IS NULL OR t.handler = ANY($5::text[]))`;
  const events = statsEventsSql(
    {
      at: 'l.created_at',
      handler: 't.handler',
      outcome: `CASE WHEN ${finished} THEN l.to_status::text END`,
      dead: `l.to_status = 'dead'`,
      durationMs,
      attempt: 'l.attempt',
      startedAt: `l.created_at - ${durationMs} * interval '1 millisecond'`,
      latenessFrom: p.jobId ? latenessFromSql('t', 'r') : latenessFromSql('t', undefined, { pruned: true }),
    },
    from,
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
