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
  /** counts in jobs.total_runs / last_run_at / last_run_id (skipped records do not) */
  countOnJob: boolean;
  /** this run's clock (created_at, and schedule_at when scheduleAt is null); default: the call's `now` */
  at?: Date;
}

export type InsertedRun = Run & { tasks: number };

/**
 * Creates runs with their tasks in ONE statement, for one or many runs of one or many jobs
 * (a trigger, a bulk trigger, the tick's look-ahead batch): the runs (copying job key and
 * version), one task per job step, one task_dependencies row per job edge, the 'created'
 * task_logs rows, the jobs' total_runs and last run (last_run_at / last_run_id / last_run_scheduled_for), and a NOTIFY tickflow_tasks per distinct
 * schedule_at of the new ready tasks (payload: that instant in epoch ms when it lies in the
 * future, else ''; lib/engine/notify.ts). One statement per table, whatever the number of runs.
 *
 * Task rules: payload = job.payload || step.payload ||
 * run params (shallow, later wins); timeout/max_retries = step override else job; backoff,
 * priority and routing from the job; schedule_at = the run's scheduleAt else now;
 * pending_parents = in-degree (+1 on roots when gated).
 *
 * Lock: the callers hold the job rows (lockJob / the tick's lockDueJobs); the jobs UPDATE is
 * the only write to existing rows, and it finds each job row again by the row address read in
 * the same statement (a row the caller holds cannot move). `runs_schedule_fire_uniq` rejects a
 * second schedule run of a slot (exactly-once firing): the whole statement then fails with 23505
 * and nothing is written. Index: jobs_pkey, job_steps (job_id, key), job_edges_to_idx (job_id,
 * to_step), runs_active_idx; every existing row is reached by key through a LATERAL sub-select
 * per job (insertRunsSql). In-degrees are counted per (job, step) once, and the new tasks' ids
 * are looked up in a jsonb map keyed by (run, step key) — never a join between the inserted
 * rows, whose plan could turn quadratic — so a 10,000-step DAG with 30,000 edges costs a few set
 * operations.
 *
 * Input: the runs as one JSON array and the columns they share (job, trigger, clock, status…)
 * as another, each run naming its set: a bulk of 1,000 runs of one job sends those columns
 * once. The statement answers each inserted run's id and stored params and each job's key,
 * version and step count; the rest of each run is what the input said.
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
  // The columns most runs share (a bulk trigger's job, trigger, clock) go once per distinct set,
  // each run naming its set: a smaller document to build, send and parse.
  const groups: unknown[] = [];
  const groupOf = new Map<string, number>();
  const items = runs.map((r) => {
    const at = r.at ?? now;
    const key = `${r.jobId}|${r.trigger}|${r.triggeredBy}|${r.scheduledFor.getTime()}|${r.scheduleAt?.getTime()}|${r.status}|${r.gated}|${r.countOnJob}|${at.getTime()}`;
    let g = groupOf.get(key);
    if (g === undefined) {
      g = groups.length;
      groupOf.set(key, g);
      groups.push({
        g, job_id: r.jobId, trigger: r.trigger, triggered_by: r.triggeredBy, scheduled_for: r.scheduledFor, schedule_at: r.scheduleAt,
        status: r.status, gated: r.gated, count_on_job: r.countOnJob, at,
      });
    }
    return { id: r.id, g, reason: r.reason, params: r.params ?? {}, trace: r.traceId, parent: r.parentRunId };
  });
  const [row] = await tx.$queryRawUnsafe<{ runs: string | null; jobs: string | null }[]>(
    opts.lockedIdle === true ? IDLE_SQL : LOCKED_SQL, JSON.stringify(items), JSON.stringify(groups),
    [...new Set(runs.map((r) => r.jobId.toLowerCase()))].sort(),
  );
  return insertedRuns(runs, now, row?.runs ?? null, row?.jobs ?? null);
}

/**
 * The inserted runs in input order, built from the input and the statement's answer: each
 * inserted run's id and stored params, each job's key, version and step count. Every other
 * column is what the statement wrote from the input (timestamps are stored to the millisecond,
 * as Date holds them).
 */
function insertedRuns(runs: readonly NewRun[], now: Date, runsJson: string | null, jobsJson: string | null): InsertedRun[] {
  if (!runsJson || !jobsJson) return [];
  const stored = new Map((JSON.parse(runsJson) as [string, Record<string, unknown>][]).map(([id, params]) => [id, params]));
  const jobs = new Map((JSON.parse(jobsJson) as [string, string, number, number][]).map(([id, key, version, steps]) => [id, { key, version, steps }]));
  const out: InsertedRun[] = [];
  for (const r of runs) {
    const id = r.id.toLowerCase();
    const params = stored.get(id);
    const jobId = r.jobId.toLowerCase();
    const job = jobs.get(jobId);
    if (params === undefined || !job) continue;
    const at = r.at ?? now;
    const skipped = r.status === 'skipped';
    out.push({
      id, jobId, jobKey: job.key, jobVersion: job.version, trigger: r.trigger as Run['trigger'], triggeredBy: r.triggeredBy,
      scheduledFor: new Date(r.scheduledFor.getTime()), status: r.status, reason: r.reason, params: params as Run['params'],
      startedAt: null, finishedAt: skipped ? new Date(at.getTime()) : null, durationMs: null, error: null,
      traceId: r.traceId, parentRunId: r.parentRunId?.toLowerCase() ?? null,
      createdAt: new Date(at.getTime()), updatedAt: new Date(at.getTime()),
      tasks: skipped ? 0 : job.steps,
    });
  }
  return out;
}

/**
 * The statement, for jobs the caller holds (`idle` false) or for jobs it locks itself (`idle`
 * true, insertRuns' `opts.lockedIdle`). Two texts rather than a flag parameter: with a flag, a
 * custom plan that folds it away looks cheaper than the generic plan, and PostgreSQL would plan
 * the statement anew on every call (a few ms for 1,000 runs). For the same reason the job ids
 * ($3, ascending: the lock order) are read through a sub-select, whose length the planner
 * estimates the same (10) in a custom plan and in the generic one.
 *
 * Every existing row is reached by key, one job at a time: jobs by primary key in a LATERAL
 * sub-select (OFFSET 0 keeps it a parameterised lookup), their steps by job_steps (job_id, key),
 * in-degrees by job_edges_to_idx, active runs by runs_active_idx, and the job rows again by
 * `ctid` for the UPDATE. So no plan reads jobs, job_steps or job_edges whole once they are more
 * than a few pages, whatever the planner believes of the input (a set-returning function counts
 * as 100 rows) or of tables it has no statistics for; and since the cost estimates grow with the
 * 10 estimated jobs and not with the runs, they stay far below jit_above_cost (a JIT compile
 * costs more than the whole statement and is not kept between calls).
 */
function insertRunsSql(idle: boolean): string {
  return preparedSql('insert-runs', `WITH i AS (
       SELECT x.id, x.reason, x.params, x.trace AS trace_id, x.parent AS parent_run_id, g.*
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, g int, reason text, params jsonb, trace text, parent uuid)
         JOIN jsonb_to_recordset($2::jsonb) AS g(g int, job_id uuid, trigger run_trigger, triggered_by text, scheduled_for timestamptz,
                                                 schedule_at timestamptz, status run_status, gated boolean, count_on_job boolean, at timestamptz)
           ON g.g = x.g
     ), ${idle ? `locked AS MATERIALIZED (
       -- one job row at a time, in ascending id (lock order), each by its primary key
       SELECT l.id, l.row_xmin FROM unnest((SELECT $3::uuid[])) AS x(id)
        CROSS JOIN LATERAL (SELECT jobs.id, jobs.xmin AS row_xmin FROM jobs WHERE jobs.id = x.id
                               FOR UPDATE OF jobs SKIP LOCKED) l
     ), ` : ''}j AS MATERIALIZED (
       SELECT jb.* FROM ${idle ? 'locked x' : 'unnest((SELECT $3::uuid[])) AS x(id)'} CROSS JOIN LATERAL (
         SELECT jobs.deleted_at IS NOT NULL AS deleted, jobs.ctid AS row_ctid, jobs.id, jobs.key, jobs.version,
                (SELECT count(*)::int FROM job_steps st WHERE st.job_id = jobs.id) AS steps, jobs.payload, jobs.priority, jobs.max_retries, jobs.timeout_seconds,
                jsonb_build_object('baseSeconds', jobs.backoff_base_seconds, 'factor', jobs.backoff_factor,
                                   'maxSeconds', jobs.backoff_max_seconds, 'jitter', jobs.backoff_jitter) AS backoff,
                jsonb_build_object('nodeGroup', jobs.routing_node_group, 'labels', jobs.routing_labels,
                                   'strategy', jobs.routing_strategy, 'nodes', to_jsonb(jobs.routing_nodes), 'key', jobs.routing_key) AS routing
           FROM jobs
          WHERE jobs.id = x.id${idle ? `
            AND jobs.xmin = x.row_xmin
            AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.job_id = jobs.id::text AND a.status IN ('pending', 'running'))` : ''}
         OFFSET 0) jb${idle ? `
        -- outside the sub-select: inside it, deleted_at IS NULL would let the planner walk the
        -- partial jobs_list_idx whole instead of taking the primary key
        WHERE NOT jb.deleted AND jb.steps > 0` : ''}
     ), js AS MATERIALIZED (
       -- per job and step, once whatever the number of runs: what each of its tasks copies
       SELECT j.id AS job_id, s.key, s.handler, s.config, j.payload || s.payload AS payload, s.resource_key,
              coalesce(s.max_retries, j.max_retries) AS max_retries, coalesce(s.timeout_seconds, j.timeout_seconds) AS timeout_seconds,
              j.priority, j.backoff, j.routing, s.indeg
         FROM j CROSS JOIN LATERAL (
           SELECT st.key, st.handler, st.config, st.payload, st.resource_key, st.max_retries, st.timeout_seconds,
                  (SELECT count(*)::int FROM job_edges e WHERE e.job_id = st.job_id AND e.to_step = st.key) AS indeg
             FROM job_steps st WHERE st.job_id = j.id OFFSET 0) s
     ), r AS (
       INSERT INTO runs (id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason, params,
                         finished_at, duration_ms, trace_id, parent_run_id, created_at, updated_at)
       SELECT i.id, j.id::text, j.key, j.version, i.trigger, i.triggered_by, i.scheduled_for, i.status, i.reason, i.params,
              CASE WHEN i.status = 'skipped' THEN i.at END, NULL, -- a skipped run never started: no duration (run-outcome.ts)
              i.trace_id, i.parent_run_id, i.at, i.at
         FROM i JOIN j ON j.id = i.job_id
       RETURNING id, params
     ), live AS (
       SELECT i.id, i.job_id, i.params, i.scheduled_for, coalesce(i.schedule_at, i.at) AS schedule_at, i.at, i.gated
         FROM i WHERE i.status = 'pending' AND i.job_id IN (SELECT id FROM j)
     ), t AS (
       INSERT INTO tasks (run_id, job_id, step_key, handler, config, payload, status, priority, attempt, max_retries,
                          timeout_seconds, backoff, schedule_at, scheduled_for, pending_parents, resource_key, routing,
                          created_at, updated_at)
       SELECT live.id, js.job_id::text, js.key, js.handler, js.config,
              CASE WHEN live.params = '{}'::jsonb THEN js.payload ELSE js.payload || live.params END, 'pending', js.priority, 1,
              js.max_retries, js.timeout_seconds, js.backoff, live.schedule_at, live.scheduled_for,
              js.indeg + CASE WHEN live.gated AND js.indeg = 0 THEN 1 ELSE 0 END,
              js.resource_key, js.routing, live.at, live.at
         FROM live JOIN js ON js.job_id = live.job_id
       RETURNING id, run_id, scheduled_for, step_key, pending_parents, schedule_at, created_at
     ), ids AS (
       -- task id per (run, step) as one jsonb map, built only when a job has edges: a keyed
       -- lookup per dependency whatever the planner estimates (a join of the inserted rows with
       -- themselves could become a nested loop over 10,000 x 10,000 rows)
       SELECT coalesce(jsonb_object_agg(run_id::text || ':' || step_key, id), '{}'::jsonb) AS m FROM t
        WHERE EXISTS (SELECT 1 FROM js WHERE js.indeg > 0)
     ), deps AS (
       INSERT INTO task_dependencies (task_id, parent_task_id, dep_type, created_at, scheduled_for)
       SELECT (ids.m ->> (live.id::text || ':' || e.to_step))::uuid, (ids.m ->> (live.id::text || ':' || e.from_step))::uuid,
              e.dep_type, live.at, live.scheduled_for
         FROM (SELECT DISTINCT js.job_id FROM js WHERE js.indeg > 0) dj
         CROSS JOIN LATERAL (SELECT ed.from_step, ed.to_step, ed.dep_type FROM job_edges ed WHERE ed.job_id = dj.job_id OFFSET 0) e
         JOIN live ON live.job_id = dj.job_id
         CROSS JOIN ids
       RETURNING 1
     ), logs AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, created_at)
       SELECT id, run_id, scheduled_for, 1, NULL, 'pending', 'created', created_at FROM t
       RETURNING 1
     ), n AS (
       -- per job, its runs counted here and the newest of them (created last; the order of
       -- lib/engine/sql/last-runs.ts): the job's last run, which last_run_at describes
       SELECT i.job_id, count(*)::int AS c, max(i.at) AS at,
              (array_agg(i.id ORDER BY i.at DESC, i.scheduled_for DESC, i.id DESC))[1] AS last_id,
              (array_agg(i.scheduled_for ORDER BY i.at DESC, i.scheduled_for DESC, i.id DESC))[1] AS last_sf
         FROM i WHERE i.count_on_job AND i.job_id IN (SELECT id FROM j) GROUP BY i.job_id
     ), bump AS (
       -- the job rows read above, by their row address: held by this statement or its caller, so
       -- unchanged since, and a TID lookup costs the same whatever the size of jobs
       UPDATE jobs SET total_runs = jobs.total_runs + n.c, last_run_at = n.at, last_run_id = n.last_id, last_run_scheduled_for = n.last_sf
         FROM n
        WHERE jobs.ctid = ANY (ARRAY(SELECT row_ctid FROM j WHERE j.id IN (SELECT job_id FROM n))) AND jobs.id = n.job_id
       RETURNING 1
     ), notified AS (
       SELECT pg_notify('${TASKS_CHANNEL}', CASE WHEN x.future
                                            THEN floor(extract(epoch FROM x.sa) * 1000)::bigint::text ELSE '' END)
         FROM (SELECT DISTINCT schedule_at AS sa, schedule_at > created_at AS future FROM t WHERE pending_parents = 0) x
     )
     SELECT (SELECT json_agg(json_build_array(r.id, r.params))::text FROM r) AS runs,
            (SELECT json_agg(json_build_array(j.id, j.key, j.version, j.steps))::text FROM j) AS jobs,
            (SELECT count(*) FROM notified)::int AS notified`);
}

const LOCKED_SQL = insertRunsSql(false);
const IDLE_SQL = insertRunsSql(true);
