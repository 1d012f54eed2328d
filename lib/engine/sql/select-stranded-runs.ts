import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * Open runs (pending or running) in which nothing can move by itself: no task running, ready
 * (pending with no pending parent: claimable now or after its backoff) or between attempts,
 * and no change for `quietSeconds`. A worker that died after a batched DAG completion and
 * before the transaction that settles its runs (lib/engine/complete-task.ts settleDagBatch)
 * leaves such a run: its last task final but the run open, or the on_failure children of a
 * success still pending. A run queued behind a serial_execution gate (a root task held by the
 * gate: pending parents but no dependency row) is waiting, not stranded, and is not returned.
 *
 * Lock: none (a read; the caller locks each run). Index: runs_active_idx (the open runs only),
 * then tasks_run_open_idx per run in the run's week.
 * @param quietSeconds how long a run and its tasks must have been unchanged (runs.updated_at and
 *   tasks.updated_at: a DAG completion writes its tasks, not its run row), seconds
 */
export async function selectStrandedRuns(db: SqlClient, p: { quietSeconds: number; limit: number }, now: Date): Promise<{ id: string; scheduledFor: Date }[]> {
  return db.$queryRawUnsafe<{ id: string; scheduledFor: Date }[]>(
    preparedSql('select-stranded-runs', `SELECT r.id, r.scheduled_for AS "scheduledFor" FROM runs r
      WHERE r.status IN ('pending', 'running')
        AND r.updated_at < $1::timestamptz - make_interval(secs => $2::double precision)
        AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.run_id = r.id AND t.scheduled_for = r.scheduled_for
                          AND (t.status IN ('running', 'failed', 'timeout') OR (t.status = 'pending' AND t.pending_parents < 1)))
        AND NOT EXISTS (SELECT 1 FROM tasks q WHERE q.run_id = r.id AND q.scheduled_for = r.scheduled_for
                          AND q.updated_at >= $1::timestamptz - make_interval(secs => $2::double precision))
        AND NOT EXISTS (SELECT 1 FROM tasks g WHERE g.run_id = r.id AND g.scheduled_for = r.scheduled_for
                          AND g.status = 'pending' AND g.pending_parents > 0
                          AND NOT EXISTS (SELECT 1 FROM task_dependencies d WHERE d.task_id = g.id AND d.scheduled_for = g.scheduled_for))
      ORDER BY r.updated_at
      LIMIT $3::int`),
    now, p.quietSeconds, p.limit,
  );
}

/**
 * The successful tasks of a run whose on_failure children are still pending: their skip (by
 * design) was not recorded. Index: tasks_run_step_uniq (run_id), task_dependencies_parent_idx.
 */
export async function selectUnpropagatedSuccesses(db: SqlClient, p: { runId: string; scheduledFor: Date }): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('select-unpropagated-successes', `SELECT DISTINCT p.id FROM tasks p
       JOIN task_dependencies d ON d.parent_task_id = p.id AND d.scheduled_for = p.scheduled_for AND d.dep_type = 'on_failure'
       JOIN tasks c ON c.id = d.task_id AND c.scheduled_for = d.scheduled_for AND c.status::text = 'pending'
      WHERE p.run_id = $1::uuid AND p.scheduled_for = $2::timestamptz AND p.status = 'success'`),
    p.runId, p.scheduledFor,
  );
  return rows.map((r) => r.id);
}
