import type { SqlClient } from '../../db.ts';

export interface LockedRun {
  id: string;
  jobId: string;
  status: string;
  startedAt: Date | null;
  params: Record<string, unknown>;
}

/**
 * Locks a run row, found by run id or by one of its task ids.
 *
 * Lock: `FOR UPDATE` on the run — as the general completion path and the settling
 * of a run's end take it, so operator actions (cancel, retry), failures and run
 * ends serialise and the run's final status is decided once; a worker's batches of
 * DAG successes hold it FOR SHARE (complete-dag-tasks.ts) and so wait for it too. Index: runs primary key / tasks primary key.
 */
export async function lockRun(tx: SqlClient, p: { runId?: string; taskId?: string; withTasks?: boolean }): Promise<LockedRun | null> {
  const rows = await tx.$queryRawUnsafe<LockedRun[]>(
    p.withTasks
      // Operator retry recomputes counters from what it reads: hold every task of the run
      // so no completion changes them in between (the run row alone does not stop completions).
      ? `WITH r AS (SELECT id FROM runs WHERE id = coalesce($1::uuid, (SELECT run_id FROM tasks WHERE id = $2::uuid)) FOR UPDATE),
              t AS (SELECT id FROM tasks WHERE run_id = (SELECT id FROM r) ORDER BY id FOR UPDATE)
         SELECT r.id, r.job_id AS "jobId", r.status::text AS status, r.started_at AS "startedAt", r.params,
                (SELECT count(*) FROM t)::int AS "_tasks"
           FROM runs r WHERE r.id = (SELECT id FROM r)`
      : `SELECT r.id, r.job_id AS "jobId", r.status::text AS status, r.started_at AS "startedAt", r.params
       FROM runs r
      WHERE r.id = coalesce($1::uuid, (SELECT run_id FROM tasks WHERE id = $2::uuid))
      FOR UPDATE`,
    p.runId ?? null, p.taskId ?? null,
  );
  return rows[0] ?? null;
}
