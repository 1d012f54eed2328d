import type { Prisma } from '../../db.ts';
import { RUNS_CHANNEL } from '../notify.ts';
import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT, statsTimeZone } from '../stats.ts';
import { STATS_ON_CONFLICT_SQL } from './record-handler-stats.ts';

export interface OnlyTaskCompleted {
  id: string;
  runId: string;
  attempt: number;
  /** 'success' when the run was still open and ended here (it always is, barring manual edits) */
  runStatus: string | null;
}

/**
 * The common completion in ONE statement: a successful attempt of the only
 * task of its run (a one-step job) — task running -> success (compare-and-set
 * on id, status, attempt, locked_by), its task_logs row, the run -> success
 * (finished_at, duration), the job's counters (success_runs + 1,
 * consecutive_failures = 0, last_run_status), the handler_stats_daily upsert
 * and NOTIFY tickflow_runs. It is exactly what finish-attempt + lock-run +
 * finalise-run (+ stats) do for such a task, without the interactive
 * transaction: one statement is atomic on its own, so it commits as one unit
 * in one round trip.
 *
 * It applies only when nothing else could need a fresh snapshot or more work:
 * - the run has no other task (a run's task set is fixed when it is created,
 *   so the statement snapshot answers this exactly; with one task no other
 *   completion can race to end the run, which is what lock-run serialises);
 * - the job is not serial_execution and has no other pending run (otherwise
 *   finalise-run would report mayRelease and release-serial-run must run as a
 *   new statement after the job lock).
 * Otherwise (or on a lost race) it changes nothing and returns null; the
 * caller then takes the general path, whose compare-and-set decides.
 *
 * Why this lock order and why one statement: locks are task row -> run row ->
 * job row -> the handler's stats row, the same order as the general path
 * (so the two never deadlock with each other; cancel takes run -> task and may,
 * rarely, deadlock with either: the caller retries 40P01). The stats row is
 * the one every completion of the handler that day shares; in an interactive
 * transaction it stayed locked for the remaining client round trips and the
 * COMMIT, which serialised all completions (measured: 8 lanes spent most of
 * their time in Lock:transactionid). In a single autocommit statement it is
 * held only from the upsert to the end of the statement.
 *
 * Stats values are computed here from the row (same rules as lib/engine/stats.ts
 * and lib/stats/rebuild-stats.ts): duration = completed_at - started_at in ms
 * (the same expression as the log's detail.durationMs), bucket =
 * width_bucket(duration, DURATION_BUCKET_BOUNDS_MS), lateness =
 * started_at - scheduled_for of a first attempt, clamped at 0.
 *
 * Index: tasks_pkey (status::text keeps the planner off tasks_lease_idx),
 * tasks_run_idx for the sibling probe, jobs_pkey, runs_active_idx, runs_pkey,
 * handler_stats_daily_pkey.
 */
export async function completeOnlyTaskSql(
  db: Pick<Prisma.TransactionClient, '$queryRawUnsafe'>,
  p: { taskId: string; attempt: number; nodeId: string; output: unknown; error: string | null; exitCode: number | null; message: string },
  now: Date,
): Promise<OnlyTaskCompleted | null> {
  const rows = await db.$queryRawUnsafe<OnlyTaskCompleted[]>(
    `WITH t AS (
       UPDATE tasks
          SET status = 'success', completed_at = $7::timestamptz, lease_until = NULL,
              output = $4::jsonb, error = $5, exit_code = $6::int, version = version + 1, updated_at = $7::timestamptz
        WHERE id = $1::uuid AND status::text = 'running' AND attempt = $2::int AND locked_by = $3
          AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.run_id = tasks.run_id AND o.id <> tasks.id)
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = tasks.job_id::uuid AND j.block_strategy = 'serial_execution')
          AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.job_id = tasks.job_id AND o.status = 'pending' AND o.id <> tasks.run_id)
       RETURNING id, run_id, job_id, handler, attempt, started_at, scheduled_for, locked_by,
                 (extract(epoch FROM ($7::timestamptz - started_at)) * 1000)::bigint AS dur
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, attempt, 'running', 'success', $10,
              jsonb_strip_nulls(jsonb_build_object('error', $5::text, 'exitCode', $6::int, 'durationMs', dur)),
              locked_by, $7::timestamptz
         FROM t
       RETURNING 1
     ), run AS (
       UPDATE runs r
          SET status = 'success', finished_at = $7::timestamptz,
              duration_ms = CASE WHEN r.started_at IS NULL THEN NULL
                                 ELSE GREATEST(0, (extract(epoch FROM ($7::timestamptz - r.started_at)) * 1000))::int END,
              error = NULL, updated_at = $7::timestamptz
         FROM t
        WHERE r.id = t.run_id AND r.status IN ('pending', 'running')
       RETURNING r.id, r.job_id, r.status
     ), job AS (
       UPDATE jobs j
          SET last_run_status = 'success', success_runs = j.success_runs + 1, consecutive_failures = 0
         FROM run
        WHERE j.id = run.job_id::uuid
       RETURNING j.id
     ), stats AS (
       INSERT INTO handler_stats_daily AS h (stat_date, handler, success, failure, timeout, dead_letter, total_duration_ms,
                                             max_duration_ms, total_lateness_ms, lateness_count, duration_buckets, updated_at)
       SELECT ($7::timestamptz AT TIME ZONE $8::text)::date, t.handler, 1, 0, 0, 0,
              coalesce(GREATEST(0, t.dur), 0), coalesce(GREATEST(0, t.dur), 0)::int,
              CASE WHEN t.attempt = 1 AND t.dur IS NOT NULL AND t.scheduled_for IS NOT NULL
                   THEN GREATEST(0, round(extract(epoch FROM (t.started_at - t.scheduled_for)) * 1000))::bigint ELSE 0 END,
              CASE WHEN t.attempt = 1 AND t.dur IS NOT NULL AND t.scheduled_for IS NOT NULL THEN 1 ELSE 0 END,
              (SELECT array_agg(CASE WHEN t.dur IS NOT NULL AND i = width_bucket(GREATEST(0, t.dur), $9::bigint[]) THEN 1 ELSE 0 END ORDER BY i)
                 FROM generate_series(0, ${DURATION_BUCKET_COUNT - 1}) i),
              $7::timestamptz
         FROM t
       ${STATS_ON_CONFLICT_SQL}
       RETURNING 1
     )
     SELECT t.id, t.run_id AS "runId", t.attempt, (SELECT status::text FROM run) AS "runStatus",
            (SELECT count(*) FROM log)::int AS "_logged", (SELECT count(*) FROM job)::int AS "_job",
            (SELECT count(*) FROM stats)::int AS "_stats",
            (SELECT count(*) FROM (SELECT pg_notify('${RUNS_CHANNEL}', id::text) FROM run) n)::int AS "_notified"
       FROM t`,
    p.taskId, p.attempt, p.nodeId, p.output === undefined ? null : JSON.stringify(p.output), p.error, p.exitCode, now,
    statsTimeZone(), DURATION_BUCKET_BOUNDS_MS.map(String), p.message,
  );
  return rows[0] ?? null;
}
