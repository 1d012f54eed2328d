import type { SqlClient } from '../../db.ts';

export interface ExpiredLease {
  id: string;
  attempt: number;
  lockedBy: string;
  leaseUntil: Date;
  /** the task's run week (the partition key) */
  scheduledFor: Date;
  /** its worker held it and never recorded its start (ClaimedTask.held) */
  held: boolean;
  /** the step's handler (the metrics' label) */
  handler: string;
}

/**
 * Running tasks whose lease ended before `now`, oldest first. Read-only: each
 * one is then reclaimed in its own transaction by the completion path, whose
 * compare-and-set re-checks (status, attempt, locked_by, lease_until < now), so
 * two reapers or a late heartbeat cannot double-reclaim.
 *
 * Lock: none. Index: tasks_lease_idx (lease_until) WHERE status = 'running'.
 */
export async function selectExpiredLeases(db: SqlClient, p: { limit: number }, now: Date): Promise<ExpiredLease[]> {
  return db.$queryRawUnsafe<ExpiredLease[]>(
    `SELECT id, attempt, locked_by AS "lockedBy", lease_until AS "leaseUntil", scheduled_for AS "scheduledFor", held, handler
       FROM tasks WHERE status = 'running' AND lease_until < $1::timestamptz
      ORDER BY lease_until LIMIT $2::int`,
    now, p.limit,
  );
}
