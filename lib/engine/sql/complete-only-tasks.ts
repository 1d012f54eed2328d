import { preparedSql, type Prisma } from '../../db.ts';
import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT, STATS_SLOT_SQL, statsTimeZone } from '../stats.ts';
import { STATS_ON_CONFLICT_SQL } from './record-handler-stats.ts';

export interface OnlyTaskCompleted {
  id: string;
  runId: string;
  attempt: number;
  /** 'success' when the run was still open and ended here (it always is, barring manual edits) */
  runStatus: string | null;
}

/**
 * The common completion in ONE statement, for a batch of attempts at once: a
 * successful attempt of the only task of its run (a one-step job) — task running -> success (compare-and-set
 * on id, status, attempt, locked_by), its task_logs row, the run -> success
 * (finished_at, duration), the job's counters (success_runs + 1,
 * consecutive_failures = 0, last_run_status) and the handler_stats_daily upsert
 * (no NOTIFY: see finalise-run.ts). It is exactly what finish-attempt + lock-run +
 * finalise-run (+ stats) do for such a task, without the interactive
 * transaction: one statement is atomic on its own, so it commits as one unit
 * in one round trip — for the whole batch: one commit (one WAL flush) for up
 * to `items.length` completions, which is what a worker's completion batcher
 * (worker/completion-batcher.ts) relies on. Each item is its own
 * compare-and-set: items that do not qualify are simply not returned.
 *
 * Batch rules: the job counters are added per job (two runs of one job in the
 * batch count twice; an UPDATE ... FROM joining a job row twice would update
 * it once), and the stats delta is summed per handler before the upsert (ON
 * CONFLICT cannot touch one row twice in a statement). Rows are locked in
 * no fixed order across the tables, so two batches can deadlock on a shared
 * job or stats row; PostgreSQL aborts one and the caller replays it (every
 * item is a compare-and-set, so a replay is safe).
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
 * shared by the completions of the handler that day (per slot, STATS_SLOTS); in an interactive
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
 * handler_stats_daily_pkey. A named prepared statement (lib/db.ts preparedSql):
 * its generic plan is these same primary-key probes, checked with
 * EXPLAIN (GENERIC_PLAN).
 */
export async function completeOnlyTasksSql(
  db: Pick<Prisma.TransactionClient, '$queryRawUnsafe'>,
  p: { nodeId: string; message: string; items: { taskId: string; attempt: number; output: unknown; error: string | null; exitCode: number | null }[] },
  now: Date,
): Promise<OnlyTaskCompleted[]> {
  if (p.items.length === 0) return [];
  // One jsonb parameter for the batch. output travels as JSON text so that a JSON null output
  // stays the jsonb value null (undefined -> the key is left out -> SQL NULL), as in a single update.
  const batch = JSON.stringify(p.items.map((i) => ({
    id: i.taskId, attempt: i.attempt, output: i.output === undefined ? undefined : JSON.stringify(i.output), error: i.error, exit_code: i.exitCode,
  })));
  return db.$queryRawUnsafe<OnlyTaskCompleted[]>(
    preparedSql('complete-only-tasks', `WITH i AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, attempt int, output text, error text, exit_code int)
     ), t AS (
       UPDATE tasks
          SET status = 'success', completed_at = $3::timestamptz, lease_until = NULL,
              output = i.output::jsonb, error = i.error, exit_code = i.exit_code, version = tasks.version + 1, updated_at = $3::timestamptz
         FROM i
        WHERE tasks.id = i.id AND tasks.status::text = 'running' AND tasks.attempt = i.attempt AND tasks.locked_by = $2
          AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.run_id = tasks.run_id AND o.id <> tasks.id)
          AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = tasks.job_id::uuid AND j.block_strategy = 'serial_execution')
          AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.job_id = tasks.job_id AND o.status = 'pending' AND o.id <> tasks.run_id)
       RETURNING tasks.id, tasks.run_id, tasks.job_id, tasks.handler, tasks.attempt, tasks.started_at, tasks.scheduled_for,
                 tasks.locked_by, i.error, i.exit_code,
                 (extract(epoch FROM ($3::timestamptz - tasks.started_at)) * 1000)::bigint AS dur
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, attempt, 'running', 'success', $6,
              jsonb_strip_nulls(jsonb_build_object('error', error, 'exitCode', exit_code, 'durationMs', dur)),
              locked_by, $3::timestamptz
         FROM t
       RETURNING 1
     ), run AS (
       UPDATE runs r
          SET status = 'success', finished_at = $3::timestamptz,
              duration_ms = CASE WHEN r.started_at IS NULL THEN NULL
                                 -- int4 ms holds 24.8 days; a run re-finished later (operator retry, mark success) is capped, not an error
                                 ELSE LEAST(2147483647, GREATEST(0, (extract(epoch FROM ($3::timestamptz - r.started_at)) * 1000)))::int END,
              error = NULL, updated_at = $3::timestamptz
         FROM t
        WHERE r.id = t.run_id AND r.status IN ('pending', 'running')
       RETURNING r.id, r.job_id, r.status
     ), job AS (
       UPDATE jobs j
          SET last_run_status = 'success', success_runs = j.success_runs + n.runs, consecutive_failures = 0
         FROM (SELECT job_id, count(*)::int AS runs FROM run GROUP BY job_id) n
        WHERE j.id = n.job_id::uuid
       RETURNING j.id
     ), attempt AS (
       SELECT handler, GREATEST(0, dur) AS dur, CASE WHEN dur IS NOT NULL THEN width_bucket(GREATEST(0, dur), $5::bigint[]) END AS bucket,
              CASE WHEN attempt = 1 AND dur IS NOT NULL AND scheduled_for IS NOT NULL
                   THEN GREATEST(0, round(extract(epoch FROM (started_at - scheduled_for)) * 1000))::bigint END AS lateness
         FROM t
     ), stats AS (
       INSERT INTO handler_stats_daily AS h (stat_date, handler, slot, success, failure, timeout, dead_letter, total_duration_ms,
                                             max_duration_ms, total_lateness_ms, lateness_count, duration_buckets, updated_at)
       SELECT ($3::timestamptz AT TIME ZONE $4::text)::date, a.handler, ${STATS_SLOT_SQL}, count(*)::int, 0, 0, 0,
              coalesce(sum(a.dur), 0)::bigint, coalesce(max(a.dur), 0)::int,
              coalesce(sum(a.lateness), 0)::bigint, count(a.lateness)::int,
              (SELECT array_agg((SELECT count(*) FROM attempt b WHERE b.handler = a.handler AND b.bucket = g.i)::int ORDER BY g.i)
                 FROM generate_series(0, ${DURATION_BUCKET_COUNT - 1}) g(i)),
              $3::timestamptz
         FROM attempt a
        GROUP BY a.handler
       ${STATS_ON_CONFLICT_SQL}
       RETURNING 1
     )
     SELECT t.id, t.run_id AS "runId", t.attempt, run.status::text AS "runStatus",
            (SELECT count(*) FROM log)::int AS "_logged", (SELECT count(*) FROM job)::int AS "_job",
            (SELECT count(*) FROM stats)::int AS "_stats"
       FROM t LEFT JOIN run ON run.id = t.run_id`),
    batch, p.nodeId, now, statsTimeZone(), DURATION_BUCKET_BOUNDS_MS.map(String), p.message,
  );
}
