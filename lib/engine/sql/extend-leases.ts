import { preparedSql, type Prisma } from '../../db.ts';

/**
 * Heartbeat: lease_until = now + leaseSeconds for the node's tasks that are
 * still running under it. A task completed, reclaimed or cancelled meanwhile
 * does not match and is reported lost so the worker aborts it.
 *
 * Lock: the node's own running task rows (no contention except with the
 * reaper, which re-checks lease_until in its compare-and-set). Index: tasks
 * primary key (id = ANY).
 */
export async function extendLeasesSql(
  db: Prisma.TransactionClient,
  p: { nodeId: string; taskIds: string[]; leaseSeconds: number },
  now: Date,
): Promise<string[]> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('extend-leases', `UPDATE tasks SET lease_until = $3::timestamptz + make_interval(secs => $4::double precision)
      WHERE id = ANY($1::uuid[]) AND status = 'running' AND locked_by = $2
     RETURNING id`),
    p.taskIds, p.nodeId, now, p.leaseSeconds,
  );
  return rows.map((r) => r.id);
}
