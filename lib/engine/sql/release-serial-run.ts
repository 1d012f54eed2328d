import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';

/**
 * serial_execution: after a run of a job ends, opens the gate of the oldest
 * queued run of that job, if no other run of the job is still active.
 *
 * The gate (see trigger-run.ts) is +1 on the pending_parents of a queued run's
 * root tasks (tasks with no dependency rows). A root task never has a positive
 * counter otherwise, so "some root task with pending_parents > 0" is exactly
 * "this run is queued". Releasing decrements those roots and clears the run's
 * reason; the released run stays `pending` until a worker claims a task.
 *
 * Must run as a new statement after the job row is locked (finalise-run.ts
 * updates it): a trigger holding the job lock may have committed a gated run
 * after this transaction's earlier statements took their snapshots, and READ
 * COMMITTED gives this statement a snapshot that includes it.
 *
 * Lock: the job row (held), the released run's root task rows. Index:
 * runs_active_idx (job_id, created_at) WHERE status IN (pending, running);
 * tasks_run_step_uniq (run_id first); task_dependencies (task_id, parent_task_id) unique.
 */
export async function releaseSerialRun(tx: SqlClient, p: { jobId: string }, now: Date): Promise<string | null> {
  const rows = await tx.$queryRawUnsafe<{ id: string | null }[]>(
    preparedSql('release-serial-run', `WITH active AS (
       SELECT r.id, r.created_at, r.scheduled_for,
              EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = r.id AND t.status = 'pending' AND t.pending_parents > 0
                        AND NOT EXISTS (SELECT 1 FROM task_dependencies d WHERE d.task_id = t.id)) AS gated
         FROM runs r WHERE r.job_id = $1 AND r.status IN ('pending', 'running')
     ), nxt AS (
       SELECT id FROM active WHERE gated AND NOT EXISTS (SELECT 1 FROM active a WHERE NOT a.gated)
        ORDER BY created_at, scheduled_for, id LIMIT 1
     ), opened AS (
       UPDATE tasks t SET pending_parents = t.pending_parents - 1, updated_at = $2::timestamptz
        WHERE t.run_id = (SELECT id FROM nxt) AND t.status = 'pending' AND t.pending_parents > 0
          AND NOT EXISTS (SELECT 1 FROM task_dependencies d WHERE d.task_id = t.id)
       RETURNING t.pending_parents
     ), run AS (
       UPDATE runs SET reason = NULL, updated_at = $2::timestamptz WHERE id = (SELECT id FROM nxt) RETURNING id
     )
     SELECT (SELECT id FROM run) AS id,
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM opened WHERE pending_parents = 0)) n)::int AS notified`),
    p.jobId, now,
  );
  return rows[0]?.id ?? null;
}
