import { preparedSql, type SqlClient } from '../../db.ts';
import type { Run } from '../types.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { runColumns } from './columns.ts';

export interface NewRun {
  /** the run's id, chosen by the caller (so results map back without relying on row order) */
  id: string;
  jobId: string;
  trigger: string;
  triggeredBy: string;
  /** nominal fire time (runs.scheduled_for) */
  scheduledFor: Date;
  /** when its tasks become claimable (null: now) */
  scheduleAt: Date | null;
  /** 'pending': a run with tasks; 'skipped': a record-only run (finished at now, no tasks) */
  status: 'pending' | 'skipped';
  reason: string | null;
  /** the trigger payload: runs.params, merged last into every task's payload */
  params: Record<string, unknown>;
  traceId: string;
  parentRunId: string | null;
  /** serial_execution gate: +1 on the pending_parents of every root task (trigger-run.ts) */
  gated: boolean;
  /** counts in jobs.total_runs / last_run_at (skipped records do not) */
  countOnJob: boolean;
  /** this run's clock (created_at, and schedule_at when scheduleAt is null); default: the call's `now` */
  at?: Date;
}

export type InsertedRun = Run & { tasks: number };

/**
 * Creates runs with their tasks in ONE statement, for one or many runs of one or many jobs
 * (a trigger, a bulk trigger, the tick's look-ahead batch): the runs (copying job key and
 * version), one task per job step, one task_dependencies row per job edge, the 'created'
 * task_logs rows, the jobs' total_runs / last_run_at, and a NOTIFY tickflow_tasks per distinct
 * schedule_at of the new ready tasks (payload: that instant in epoch ms when it lies in the
 * future, else ''; lib/engine/notify.ts). One statement per table, whatever the number of runs.
 *
 * Task rules: payload = job.payload || step.payload ||
 * run params (shallow, later wins); timeout/max_retries = step override else job; backoff,
 * priority and routing from the job; schedule_at = the run's scheduleAt else now;
 * pending_parents = in-degree (+1 on roots when gated).
 *
 * Lock: the callers hold the job rows (lockJob / the tick's lockDueJobs); the jobs UPDATE is
 * the only write to existing rows. `runs_schedule_fire_uniq` rejects a second schedule run of
 * a slot (exactly-once firing): the whole statement then fails with 23505 and nothing is
 * written. Index: jobs_pkey, job_steps (job_id, key), job_edges (job_id, …); in-degrees and
 * the new tasks' ids are looked up in jsonb maps keyed by (job or run, step key) — never a
 * join between the inserted rows, whose plan could turn quadratic — so a 10,000-step DAG with
 * 30,000 edges costs a few set operations.
 *
 * `opts.lockedIdle` (one statement on its own, outside a transaction: trigger-run.ts's fast
 * path): the statement takes the job rows itself (`FOR UPDATE SKIP LOCKED`: it never waits, so
 * a busy job cannot hold up the others in the statement) and inserts a job's runs only when
 * the job is live, has steps and has no active run, and its row is the version this
 * statement's snapshot holds. Under READ COMMITTED a statement's snapshot is taken before it
 * locks, and the lock goes to the row's newest version, so a run committed in between by a
 * trigger or a re-open would be invisible here; every insert of an active run updates the job
 * row (the `bump` below), as do a re-open (lock-job-row.ts lockJobRowForReopen) and a job edit
 * (its version), so such a change leaves a newer row version than the snapshot's and the job
 * is left out. A job left out (also one whose row another transaction holds) gets no rows: the
 * caller then takes the transaction path (lockJob, block strategy). The PostgreSQL docs,
 * "Transaction Isolation", Read Committed, and "The Locking Clause" describe the newest-version
 * re-check and SKIP LOCKED this relies on.
 * @returns the inserted runs in input order, each with its task count (0 for a skipped record
 *   or a job without steps: the caller ends such a pending run, settle.ts finishRunIfDone)
 */
export async function insertRuns(
  tx: SqlClient,
  runs: readonly NewRun[],
  now: Date,
  opts: { lockedIdle?: boolean } = {},
): Promise<InsertedRun[]> {
  if (runs.length === 0) return [];
  const input = JSON.stringify(runs.map((r, ord) => ({
    ord,
    id: r.id,
    job_id: r.jobId,
    trigger: r.trigger,
    triggered_by: r.triggeredBy,
    scheduled_for: r.scheduledFor.toISOString(),
    schedule_at: r.scheduleAt ? r.scheduleAt.toISOString() : null,
    status: r.status,
    reason: r.reason,
    params: r.params ?? {},
    trace_id: r.traceId,
    parent_run_id: r.parentRunId,
    gated: r.gated,
    count_on_job: r.countOnJob,
    at: (r.at ?? now).toISOString(),
  })));
  const rows = await tx.$queryRawUnsafe<(InsertedRun & { ord: number })[]>(
    preparedSql('insert-runs', `WITH i AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(ord int, id uuid, job_id uuid, trigger run_trigger, triggered_by text,
              scheduled_for timestamptz, schedule_at timestamptz, status run_status, reason text, params jsonb, trace_id text,
              parent_run_id uuid, gated boolean, count_on_job boolean, at timestamptz)
     ), locked AS MATERIALIZED (
       SELECT l.id, l.xmin::text AS version_xmin FROM jobs l
        WHERE $2::boolean AND l.id = ANY (ARRAY(SELECT job_id FROM i))
        ORDER BY l.id
          FOR UPDATE OF l SKIP LOCKED
     ), j AS (
       SELECT * FROM jobs WHERE id IN (SELECT job_id FROM i)
          AND (NOT $2::boolean OR EXISTS (
                SELECT 1 FROM locked l
                 WHERE l.id = jobs.id AND l.version_xmin = jobs.xmin::text AND jobs.deleted_at IS NULL
                   AND EXISTS (SELECT 1 FROM job_steps st WHERE st.job_id = jobs.id)
                   AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.job_id = jobs.id::text AND a.status IN ('pending', 'running'))))
     ), r AS (
       INSERT INTO runs (id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason, params,
                         finished_at, duration_ms, trace_id, parent_run_id, created_at, updated_at)
       SELECT i.id, j.id::text, j.key, j.version, i.trigger, i.triggered_by, i.scheduled_for, i.status, i.reason, i.params,
              CASE WHEN i.status = 'skipped' THEN i.at END, CASE WHEN i.status = 'skipped' THEN 0 END,
              i.trace_id, i.parent_run_id, i.at, i.at
         FROM i JOIN j ON j.id = i.job_id
        ORDER BY i.ord
       RETURNING *
     ), live AS (
       -- the runs r inserts (those of the jobs in j), found through the few jobs: a semi-join of
       -- i against r's rows can be planned as a nested loop, quadratic in a bulk trigger
       SELECT i.* FROM i WHERE i.status = 'pending' AND i.job_id IN (SELECT id FROM j)
     ), indeg AS (
       -- in-degree per (job, step) as one jsonb map: a keyed lookup per task whatever the planner
       -- estimates (a join here could become a nested loop over 10,000 x 10,000 rows)
       SELECT coalesce(jsonb_object_agg(k, n), '{}'::jsonb) AS m FROM (
         SELECT e.job_id::text || ':' || e.to_step AS k, count(*)::int AS n
           FROM job_edges e WHERE e.job_id IN (SELECT job_id FROM live) GROUP BY e.job_id, e.to_step) x
     ), t AS (
       INSERT INTO tasks (run_id, job_id, step_key, handler, config, payload, status, priority, attempt, max_retries,
                          timeout_seconds, backoff, schedule_at, scheduled_for, pending_parents, resource_key, routing,
                          created_at, updated_at)
       SELECT live.id, j.id::text, s.key, s.handler, s.config, j.payload || s.payload || live.params, 'pending', j.priority, 1,
              coalesce(s.max_retries, j.max_retries), coalesce(s.timeout_seconds, j.timeout_seconds),
              jsonb_build_object('baseSeconds', j.backoff_base_seconds, 'factor', j.backoff_factor,
                                 'maxSeconds', j.backoff_max_seconds, 'jitter', j.backoff_jitter),
              coalesce(live.schedule_at, live.at), live.scheduled_for,
              coalesce((d.m ->> (j.id::text || ':' || s.key))::int, 0)
                + CASE WHEN live.gated AND NOT d.m ? (j.id::text || ':' || s.key) THEN 1 ELSE 0 END,
              s.resource_key,
              jsonb_build_object('nodeGroup', j.routing_node_group, 'labels', j.routing_labels,
                                 'strategy', j.routing_strategy, 'nodes', to_jsonb(j.routing_nodes), 'key', j.routing_key),
              live.at, live.at
         FROM live JOIN j ON j.id = live.job_id
         JOIN job_steps s ON s.job_id = j.id
         CROSS JOIN indeg d
       RETURNING id, run_id, scheduled_for, step_key, pending_parents, schedule_at, created_at
     ), ids AS (
       -- task id per (run, step) as one jsonb map, for the same reason as indeg
       SELECT coalesce(jsonb_object_agg(run_id::text || ':' || step_key, id), '{}'::jsonb) AS m FROM t
        WHERE EXISTS (SELECT 1 FROM job_edges e WHERE e.job_id IN (SELECT job_id FROM live))
     ), deps AS (
       INSERT INTO task_dependencies (task_id, parent_task_id, dep_type, created_at, scheduled_for)
       SELECT (ids.m ->> (live.id::text || ':' || e.to_step))::uuid, (ids.m ->> (live.id::text || ':' || e.from_step))::uuid,
              e.dep_type, live.at, live.scheduled_for
         FROM live
         JOIN job_edges e ON e.job_id = live.job_id
         CROSS JOIN ids
       RETURNING 1
     ), logs AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, created_at)
       SELECT id, run_id, scheduled_for, 1, NULL, 'pending', 'created', created_at FROM t
       RETURNING 1
     ), bump AS (
       UPDATE jobs SET total_runs = total_runs + n.c, last_run_at = n.at
         FROM (SELECT job_id, count(*)::int AS c, max(at) AS at FROM i WHERE i.count_on_job AND i.job_id IN (SELECT id FROM j) GROUP BY job_id) n
        WHERE jobs.id = n.job_id
       RETURNING 1
     ), tc AS (
       SELECT run_id, count(*)::int AS n FROM t GROUP BY run_id
     ), notified AS (
       SELECT pg_notify('${TASKS_CHANNEL}', CASE WHEN x.future
                                            THEN floor(extract(epoch FROM x.sa) * 1000)::bigint::text ELSE '' END)
         FROM (SELECT DISTINCT schedule_at AS sa, schedule_at > created_at AS future FROM t WHERE pending_parents = 0) x
     )
     SELECT ${runColumns('r')}, i.ord, coalesce(tc.n, 0) AS tasks,
            (SELECT count(*) FROM notified)::int AS "_notified", (SELECT count(*) FROM deps)::int AS "_deps",
            (SELECT count(*) FROM logs)::int AS "_logs", (SELECT count(*) FROM bump)::int AS "_bump"
       FROM r JOIN i ON i.id = r.id LEFT JOIN tc ON tc.run_id = r.id
      ORDER BY i.ord`),
    input, opts.lockedIdle === true,
  );
  return rows.map(({ ord: _ord, _notified, _deps, _logs, _bump, ...run }: InsertedRun & { ord: number } & Record<string, unknown>) => run as InsertedRun);
}
