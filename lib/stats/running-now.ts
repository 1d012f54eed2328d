import type { Db } from '../db.ts';

/** A task running right now (instants ISO-8601 UTC). `worker` is the node's name (its id when it has left). */
export type RunningTask = { taskId: string; runId: string; jobId: string; jobKey: string; jobName: string; stepKey: string; attempt: number; worker: string | null; startedAt: string | null };

/**
 * Tasks in status `running`, longest running first, at most `limit` (default 50): job name, step, worker and start,
 * for the overview's "Running now". Bounded by the running set (the partial index tasks_lease_idx covers exactly the running rows).
 */
export async function getRunningNow(db: Db, limit = 50): Promise<RunningTask[]> {
  const rows = await db.$queryRaw<
    { task_id: string; run_id: string; job_id: string; job_key: string; job_name: string; step_key: string; attempt: number; worker: string | null; started_at: Date | null }[]
  >`
    SELECT t.id AS task_id, t.run_id, r.job_id, j.key AS job_key, j.name AS job_name, t.step_key, t.attempt,
           COALESCE(w.name, t.locked_by) AS worker, t.started_at
      FROM tasks t
      JOIN runs r ON r.id = t.run_id AND r.scheduled_for = t.scheduled_for
      JOIN jobs j ON j.id = r.job_id::uuid
      LEFT JOIN worker_nodes w ON w.node_id = t.locked_by
     WHERE t.status = 'running'
     ORDER BY t.started_at ASC NULLS LAST, t.id
     LIMIT ${limit}`;
  return rows.map((x) => ({
    taskId: x.task_id,
    runId: x.run_id,
    jobId: x.job_id,
    jobKey: x.job_key,
    jobName: x.job_name,
    stepKey: x.step_key,
    attempt: x.attempt,
    worker: x.worker,
    startedAt: x.started_at?.toISOString() ?? null,
  }));
}
