import { preparedSql, type Prisma } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';

export interface InstantiateResult {
  tasks: number;
  edges: number;
  ready: number;
}

/**
 * Creates one task per job step, one task_dependencies row per job edge and one
 * task_logs row (null -> pending, 'created') per task, set-based in a single
 * statement, and NOTIFYs workers when a task is ready (payload: the future schedule_at in
 * epoch ms, or '' for now; lib/engine/notify.ts).
 *
 * task.payload = job.payload || step.payload || trigger payload (shallow merge,
 * later wins); timeout/max_retries = step override else job; backoff, priority
 * and routing come from the job; pending_parents = number of incoming edges,
 * plus 1 on root tasks when `gated` (serial_execution: see trigger-run.ts).
 *
 * Lock: only new rows (no contention). Index: job_steps (job_id, key) unique;
 * job_edges_to_idx (job_id, to_step) for in-degrees; the dependency rows join
 * the inserted tasks by step key in memory (hash join), so a 10,000-step DAG
 * with 30,000 edges is a few set operations, not 40,000 round trips.
 */
export async function instantiateTasks(
  tx: Prisma.TransactionClient,
  p: { runId: string; jobId: string; scheduledFor: Date; payload: Record<string, unknown>; gated: boolean; scheduleAt?: Date },
  now: Date,
): Promise<InstantiateResult> {
  const rows = await tx.$queryRawUnsafe<InstantiateResult[]>(
    preparedSql('instantiate-tasks', `WITH j AS (
       SELECT * FROM jobs WHERE id = $2::uuid
     ), indeg AS (
       SELECT to_step, count(*)::int AS n FROM job_edges WHERE job_id = $2::uuid GROUP BY to_step
     ), ins AS (
       INSERT INTO tasks (run_id, job_id, step_key, handler, config, payload, status, priority, attempt, max_retries,
                          timeout_seconds, backoff, schedule_at, scheduled_for, pending_parents, resource_key, routing,
                          created_at, updated_at)
       SELECT $1::uuid, j.id::text, s.key, s.handler, s.config, j.payload || s.payload || $4::jsonb, 'pending', j.priority, 1,
              coalesce(s.max_retries, j.max_retries), coalesce(s.timeout_seconds, j.timeout_seconds),
              jsonb_build_object('baseSeconds', j.backoff_base_seconds, 'factor', j.backoff_factor,
                                 'maxSeconds', j.backoff_max_seconds, 'jitter', j.backoff_jitter),
              coalesce($7::timestamptz, $5::timestamptz), $3::timestamptz,
              coalesce(d.n, 0) + CASE WHEN $6::boolean AND d.n IS NULL THEN 1 ELSE 0 END,
              s.resource_key,
              jsonb_build_object('nodeGroup', j.routing_node_group, 'labels', j.routing_labels,
                                 'strategy', j.routing_strategy, 'nodes', to_jsonb(j.routing_nodes), 'key', j.routing_key),
              $5::timestamptz, $5::timestamptz
         FROM j JOIN job_steps s ON s.job_id = j.id
         LEFT JOIN indeg d ON d.to_step = s.key
       RETURNING id, run_id, step_key, pending_parents
     ), deps AS (
       INSERT INTO task_dependencies (task_id, parent_task_id, dep_type, created_at)
       SELECT c.id, p.id, e.dep_type, $5::timestamptz
         FROM job_edges e
         JOIN ins p ON p.step_key = e.from_step
         JOIN ins c ON c.step_key = e.to_step
        WHERE e.job_id = $2::uuid
       RETURNING 1
     ), logs AS (
       INSERT INTO task_logs (task_id, run_id, attempt, from_status, to_status, message, created_at)
       SELECT id, run_id, 1, NULL, 'pending', 'created', $5::timestamptz FROM ins
       RETURNING 1
     ), counts AS (
       SELECT (SELECT count(*) FROM ins)::int AS tasks,
              (SELECT count(*) FROM deps)::int AS edges,
              (SELECT count(*) FROM logs)::int AS logs,
              (SELECT count(*) FROM ins WHERE pending_parents = 0)::int AS ready
     )
     SELECT tasks, edges, ready,
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}',
                                     CASE WHEN $7::timestamptz > $5::timestamptz
                                          THEN floor(extract(epoch FROM $7::timestamptz) * 1000)::bigint::text ELSE '' END)
                                     FROM counts WHERE ready > 0) n)::int AS notified
       FROM counts`),
    p.runId, p.jobId, p.scheduledFor, JSON.stringify(p.payload ?? {}), now, p.gated, p.scheduleAt ?? null,
  );
  const r = rows[0];
  return { tasks: r.tasks, edges: r.edges, ready: r.ready };
}
