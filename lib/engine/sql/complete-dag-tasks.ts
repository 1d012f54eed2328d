import { preparedSql, type Prisma } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT, STATS_SLOT_SQL, STATS_TZ_SQL } from '../stats.ts';
import { STATS_ON_CONFLICT_SQL } from './record-handler-stats.ts';

export interface DagTaskCompleted {
  id: string;
  runId: string;
  attempt: number;
  handler: string;
  /** completed_at - started_at, ms (null without started_at) */
  durationMs: number | null;
  /** started_at - scheduled_for of a first attempt, ms, else null */
  latenessMs: number | null;
  /** pending on_failure children: they must be skipped by design (propagate-final.ts) */
  onFailureChildren: number;
  /** tasks of this task's run that became ready in this statement (pending_parents reached 0) */
  runReady: number;
  /** the statement also booked the batch's handler stats (the same on every row) */
  statsBooked: boolean;
}

/**
 * Successes of a batch of tasks of any runs (DAG steps above all) in ONE statement: each item is
 * finish-attempt.ts's compare-and-set (id, status running, attempt, locked_by) -> success, its
 * task_logs row, and the hard/soft children's pending_parents decrement — summed per child over
 * the batch, because an UPDATE touches a row once per statement: a join step whose parents all
 * succeed in this batch is decremented by its number of such parents and becomes ready exactly
 * once. A NOTIFY tickflow_tasks ('' = ready now) is sent when a child became ready (other workers
 * claim it; this worker is told by the result, `runReady`).
 *
 * Locks, in the engine's lock order (lib/engine/lock-order.ts): when `jobFirst` (a replay after a
 * NOWAIT refusal, or inside a caller's transaction) the items' job rows, then their run rows,
 * then the task rows, each set in ascending id; then the pending children. Completions of tasks
 * of one run — in this batch, another batch or on another worker — so take turns on the run row
 * and the run row stays held until COMMIT. The child decrement needs no snapshot: an UPDATE
 * re-reads the latest committed row it waited for, so a parent completing elsewhere at the same
 * time is counted once. Whether a run has ended is NOT decided here (this statement's snapshot
 * may predate the previous run holder's commit): probeRunsAfterCompletion, a later statement,
 * does it. on_failure children are the caller's next statement too (complete-task.ts
 * completeDagBatch).
 * Index: tasks_pkey; runs_pkey; task_dependencies_parent_idx for the children.
 */
export async function completeDagTasksSql(
  tx: Prisma.TransactionClient,
  p: { nodeId: string; message: string; jobFirst: boolean; items: { taskId: string; attempt: number; output: unknown; error: string | null; exitCode: number | null }[] },
  now: Date,
): Promise<DagTaskCompleted[]> {
  if (p.items.length === 0) return [];
  const batch = JSON.stringify(p.items.map((i) => ({
    id: i.taskId, attempt: i.attempt, output: i.output === undefined ? undefined : JSON.stringify(i.output), error: i.error, exit_code: i.exitCode,
  })));
  return tx.$queryRawUnsafe<DagTaskCompleted[]>(
    preparedSql('complete-dag-tasks', `WITH i AS (
       SELECT DISTINCT ON (id, attempt) * FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, attempt int, output text, error text, exit_code int)
     ), lj AS (
       -- Lock order (lib/engine/lock-order.ts): on a replay the jobs first, then the runs, then the
       -- tasks, each set in ascending id. Each step is an uncorrelated sub-select of the next one's
       -- WHERE, which PostgreSQL runs once, in full, before that step reads its first row.
       SELECT j.id FROM jobs j
        WHERE $5::boolean AND j.id IN (SELECT k.job_id::uuid FROM tasks k JOIN i ON i.id = k.id)
        ORDER BY j.id FOR UPDATE OF j
     ), lr AS (
       SELECT r.id FROM runs r
        WHERE r.id IN (SELECT k.run_id FROM tasks k JOIN i ON i.id = k.id) AND (SELECT count(*) FROM lj) >= 0
        ORDER BY r.id FOR UPDATE OF r
     ), t AS (
       UPDATE tasks
          SET status = 'success', completed_at = $3::timestamptz, lease_until = NULL,
              output = i.output::jsonb, error = i.error, exit_code = i.exit_code, version = tasks.version + 1, updated_at = $3::timestamptz
         FROM i
        -- status::text keeps the planner on tasks_pkey (finish-attempt.ts)
        WHERE tasks.id = i.id AND tasks.status::text = 'running' AND tasks.attempt = i.attempt AND tasks.locked_by = $2
          AND (SELECT count(*) FROM lr) >= 0
       RETURNING tasks.id, tasks.run_id, tasks.handler, tasks.attempt, tasks.started_at, tasks.scheduled_for, tasks.locked_by,
                 i.error, i.exit_code, (extract(epoch FROM ($3::timestamptz - tasks.started_at)) * 1000)::bigint AS dur
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, attempt, 'running', 'success', $4,
              jsonb_strip_nulls(jsonb_build_object('error', error, 'exitCode', exit_code, 'durationMs', dur)),
              locked_by, $3::timestamptz
         FROM t
       RETURNING 1
     ), edges AS (
       SELECT d.task_id, count(*)::int AS n FROM task_dependencies d
        WHERE d.parent_task_id IN (SELECT id FROM t) AND d.dep_type IN ('hard', 'soft')
        GROUP BY d.task_id
     ), dec AS (
       UPDATE tasks c SET pending_parents = c.pending_parents - e.n, updated_at = $3::timestamptz
         FROM edges e
        WHERE c.id = e.task_id AND c.status = 'pending'
       RETURNING c.run_id, c.pending_parents
     ), ready AS (
       SELECT run_id, count(*)::int AS n FROM dec WHERE pending_parents = 0 GROUP BY run_id
     ), onf AS (
       SELECT d.parent_task_id AS id, count(*)::int AS n FROM task_dependencies d JOIN tasks c ON c.id = d.task_id
        WHERE d.parent_task_id IN (SELECT id FROM t) AND d.dep_type = 'on_failure' AND c.status = 'pending'
        GROUP BY d.parent_task_id
     ), attempt AS (
       SELECT handler, CASE WHEN dur IS NOT NULL THEN GREATEST(0, dur) END AS dur,
              CASE WHEN dur IS NOT NULL THEN width_bucket(GREATEST(0, dur), $6::bigint[]) END AS bucket,
              CASE WHEN attempt = 1 AND dur IS NOT NULL AND scheduled_for IS NOT NULL
                   THEN GREATEST(0, round(extract(epoch FROM (started_at - scheduled_for)) * 1000))::bigint END AS lateness
         FROM t
     ), stats AS (
       -- When every item's run got a ready task and no on_failure child waits, nothing follows this
       -- statement but COMMIT: the handler stats ride along (hot rows, locked last: lock-order.ts).
       -- Otherwise the caller books them after its other statements (statsBooked = false).
       ${successStatsSql('NOT EXISTS (SELECT 1 FROM t WHERE t.run_id NOT IN (SELECT run_id FROM ready)) AND NOT EXISTS (SELECT 1 FROM onf)', '$3')}
       RETURNING 1
     )
     SELECT t.id, t.run_id AS "runId", t.attempt, t.handler, (SELECT count(*) FROM stats) > 0 AS "statsBooked",
            CASE WHEN t.dur IS NOT NULL THEN GREATEST(0, t.dur)::float8 END AS "durationMs",
            CASE WHEN t.attempt = 1 AND t.dur IS NOT NULL AND t.scheduled_for IS NOT NULL
                 THEN GREATEST(0, round(extract(epoch FROM (t.started_at - t.scheduled_for)) * 1000))::float8 END AS "latenessMs",
            coalesce(onf.n, 0) AS "onFailureChildren", coalesce(ready.n, 0) AS "runReady",
            (SELECT count(*) FROM log)::int AS "_logged",
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM ready)) n)::int AS "_notified"
       FROM t LEFT JOIN onf ON onf.id = t.id LEFT JOIN ready ON ready.run_id = t.run_id`),
    batch, p.nodeId, now, p.message, p.jobFirst, DURATION_BUCKET_BOUNDS_MS.map(String),
  );
}

export interface StatsRow {
  handler: string;
  durationMs: number | null;
  latenessMs: number | null;
}

/**
 * The handler_stats_daily upsert of a batch of successful attempts, summed per handler (the
 * rules of complete-only-tasks.ts's stats step: bucket = width_bucket(duration,
 * DURATION_BUCKET_BOUNDS_MS), lateness counted for first attempts), as SQL text over a CTE named
 * `attempt` (handler, dur, bucket, lateness); `when` is a condition that must hold for anything
 * to be written, `nowSql` the parameter of the clock. Rows are locked in handler order
 * (lock-order.ts: stats last).
 */
function successStatsSql(when: string, nowSql: string): string {
  return `INSERT INTO handler_stats_daily AS h (stat_date, handler, slot, success, failure, timeout, dead_letter, total_duration_ms,
                                           max_duration_ms, total_lateness_ms, lateness_count, duration_buckets, updated_at)
     SELECT (${nowSql}::timestamptz AT TIME ZONE ${STATS_TZ_SQL})::date, a.handler, ${STATS_SLOT_SQL}, count(*)::int, 0, 0, 0,
            coalesce(sum(a.dur), 0)::bigint, coalesce(max(a.dur), 0)::int,
            coalesce(sum(a.lateness), 0)::bigint, count(a.lateness)::int,
            (SELECT array_agg((SELECT count(*) FROM attempt b WHERE b.handler = a.handler AND b.bucket = g.i)::int ORDER BY g.i)
               FROM generate_series(0, ${DURATION_BUCKET_COUNT - 1}) g(i)),
            ${nowSql}::timestamptz
       FROM attempt a
      WHERE ${when}
      GROUP BY a.handler
      ORDER BY a.handler
     ${STATS_ON_CONFLICT_SQL}`;
}

/** successStatsSql's rows parameter (jsonb) for `rows` */
function statsRowsParam(rows: StatsRow[]): string {
  return JSON.stringify(rows.map((r) => ({ handler: r.handler, dur: r.durationMs === null ? null : Math.max(0, Math.round(r.durationMs)), lateness: r.latenessMs === null ? null : Math.max(0, Math.round(r.latenessMs)) })));
}

const attemptCte = (first: number) => `attempt AS (
       SELECT handler, dur, CASE WHEN dur IS NOT NULL THEN width_bucket(dur, $${first + 2}::bigint[]) END AS bucket, lateness
         FROM jsonb_to_recordset($${first}::jsonb) AS x(handler text, dur bigint, lateness bigint)
     )`;

/** Adds a batch of successful attempts to handler_stats_daily (successStatsSql), standalone: the transaction's last statement. */
export async function recordSuccessStats(tx: Prisma.TransactionClient, rows: StatsRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(preparedSql('record-success-stats', `WITH ${attemptCte(1)} ${successStatsSql('true', '$2')}`),
    statsRowsParam(rows), now, DURATION_BUCKET_BOUNDS_MS.map(String));
}

/**
 * After completeDagTasksSql, in a new statement (a fresh READ COMMITTED snapshot, taken while the
 * runs are held): which of `runIds` may have ended or be stuck — no open task, or open tasks of
 * which none is running, ready or between attempts (finalise-run.ts's probe, per run). Those go
 * through settle.ts finishRunIfDone; when there are none — the common case, a DAG that goes on —
 * the batch's handler stats ride on this statement as its last step, so the transaction needs no
 * further statement before COMMIT (`statsDone`).
 * Index: tasks_run_open_idx per run (pending_parents < 1: finalise-run.ts).
 */
export async function probeRunsAfterCompletion(
  tx: Prisma.TransactionClient,
  runIds: string[],
  stats: StatsRow[],
  now: Date,
): Promise<{ toFinish: string[]; statsDone: boolean }> {
  const rows = await tx.$queryRawUnsafe<{ id: string | null; live: boolean | null; _stats: number }[]>(
    preparedSql('probe-runs-after-completion', `WITH ${attemptCte(2)}, p AS (
       SELECT r.id,
              EXISTS (SELECT 1 FROM tasks WHERE run_id = r.id AND status IN ('running', 'failed', 'timeout'))
                OR EXISTS (SELECT 1 FROM tasks WHERE run_id = r.id AND status = 'pending' AND pending_parents < 1) AS live
         FROM unnest($1::uuid[]) AS r(id)
     ), stats AS (${successStatsSql('NOT EXISTS (SELECT 1 FROM p WHERE NOT p.live)', '$3')} RETURNING 1)
     SELECT p.id, p.live, (SELECT count(*) FROM stats)::int AS _stats FROM p
     UNION ALL SELECT NULL, NULL, (SELECT count(*) FROM stats)::int WHERE NOT EXISTS (SELECT 1 FROM p)`),
    runIds, statsRowsParam(stats), now, DURATION_BUCKET_BOUNDS_MS.map(String),
  );
  const toFinish = rows.filter((r) => r.id !== null && !r.live).map((r) => r.id!);
  return { toFinish, statsDone: stats.length === 0 || toFinish.length === 0 };
}
