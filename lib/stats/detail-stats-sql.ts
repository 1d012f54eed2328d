import { TRANSACTION_TIMEOUT_MS, type Db, type PrismaClient } from '../db.ts';
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
 * - every job: the logs of [start, end) by their time (task_logs_created_idx, BRIN), hashed with
 *   their tasks and runs read by the range of scheduled_for those logs belong to (tasks_scheduled_idx,
 *   BRIN; runs_time_idx), found by a first statement in the same REPEATABLE READ snapshot, so a log
 *   committed in between cannot fall outside it. Without that range PostgreSQL hashed every task of
 *   the history (a sequential scan of every weekly partition). Nested loops are off for the
 *   statement: PostgreSQL estimates a few hours of a BRIN range at a handful of logs and would then
 *   probe the logs, tasks or runs row by row, each probe opening every weekly partition again (48
 *   hours of a 400,000-run history took 7 s that way). Retries and backfills log long after their
 *   slot and widen the range to their weeks; the result is the same.
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
       JOIN runs r ON r.id = t.run_id AND r.scheduled_for = t.scheduled_for
      WHERE ${logFilter}
        AND t.scheduled_for BETWEEN $6::timestamptz AND $7::timestamptz
        AND r.scheduled_for BETWEEN $6::timestamptz AND $7::timestamptz
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
      latenessFrom: latenessFromSql('t', 'r'),
    },
    from,
    '$3::text',
  );
  const bucket = p.granularity === 'hour' ? `to_char(date_trunc('hour', e.at AT TIME ZONE $3::text), 'YYYY-MM-DD"T"HH24:00')` : `to_char(e.stat_date, 'YYYY-MM-DD')`;
  const sql = `SELECT r.* FROM (${statsRowsSql(events, bucket, 'bucket')}) r ORDER BY r.bucket, r.handler`;
  const params = [p.start, p.end, p.timeZone, p.jobId ?? null, p.handlers?.length ? p.handlers : null];
  const rows = p.jobId
    ? await db.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params)
    : await inSnapshot(db, async (tx) => {
        // the weeks of the window's logs: min and max of their scheduled_for (task_logs_created_idx)
        const [range] = await tx.$queryRawUnsafe<{ lo: Date | null; hi: Date | null }[]>(
          `SELECT min(l.scheduled_for) AS lo, max(l.scheduled_for) AS hi FROM task_logs l WHERE ${logFilter}`, p.start, p.end);
        if (!range?.lo) return [];
        if (tx !== db) await tx.$executeRawUnsafe('SET LOCAL enable_nestloop = off');
        return tx.$queryRawUnsafe<Record<string, unknown>[]>(sql, ...params, range.lo, range.hi);
      });
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

/**
 * `fn` in a read-only REPEATABLE READ transaction of its own (one snapshot for its statements), or
 * in the caller's transaction when `db` is one (`fn` gets `db` itself then, and leaves its settings alone).
 */
async function inSnapshot<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if (!('$transaction' in db)) return fn(db);
  return (db as PrismaClient).$transaction(async (tx) => {
    await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
    return fn(tx);
  }, { isolationLevel: 'RepeatableRead', timeout: TRANSACTION_TIMEOUT_MS, maxWait: 10_000 });
}
