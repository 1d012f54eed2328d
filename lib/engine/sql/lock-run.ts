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
 * Lock: `FOR UPDATE` on the run — the same lock completions take, so operator
 * actions (cancel, retry) and completions of the run's tasks serialise and the
 * run's final status is decided once. Index: runs primary key / tasks primary key.
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
