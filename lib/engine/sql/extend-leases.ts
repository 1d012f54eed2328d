import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * Heartbeat: lease_until = now + leaseSeconds for the node's tasks that are
 * still running under it, and held = false for those of them whose handler has been called. A task completed, reclaimed or cancelled meanwhile
 * does not match and is reported lost so the worker aborts it.
 *
 * Lock: the node's own running task rows, in ascending id (lib/engine/lock-order.ts),
 * so it never waits in a cycle with a cancel that locks a run's tasks in the same order;
 * the reaper re-checks lease_until in its compare-and-set. Index: tasks
 * primary key (id = ANY).
 */
export async function extendLeasesSql(
  db: SqlClient,
  p: { nodeId: string; taskIds: string[]; leaseSeconds: number; startedTaskIds?: string[] },
  now: Date,
): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('extend-leases', `WITH mine AS (
       SELECT id FROM tasks WHERE id = ANY($1::uuid[]) AND status = 'running' AND locked_by = $2 ORDER BY id FOR UPDATE
     )
     UPDATE tasks t SET lease_until = $3::timestamptz + make_interval(secs => $4::double precision),
            -- a held task whose handler runs: started (mark-held-tasks-started.ts, again if it failed)
            held = t.held AND NOT (t.id = ANY($5::uuid[]))
       FROM mine WHERE t.id = mine.id AND t.status = 'running' AND t.locked_by = $2
     RETURNING t.id`),
    p.taskIds, p.nodeId, now, p.leaseSeconds, p.startedTaskIds ?? [],
  );
  return rows.map((r) => r.id);
}

/**
 * Of the given task ids, those whose status is `cancelled` (cancel-run-tasks.ts). Read after a
 * heartbeat found them no longer running under its node. Index: tasks primary key (id = ANY).
 */
export async function selectCancelledTasks(db: SqlClient, taskIds: string[]): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('select-cancelled-tasks', `SELECT id::text AS id FROM tasks WHERE id = ANY($1::uuid[]) AND status = 'cancelled'`),
    taskIds,
  );
  return rows.map((r) => r.id);
}
