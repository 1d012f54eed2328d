/**
 * Deletes worker_nodes rows of nodes that have been offline or stopped for a long time.
 * Every worker process registers a new node id (a restart never adopts a dead
 * process's tasks), so without this the workers page and the handler catalogue
 * (lib/jobs/known-handlers.ts) would keep every process ever started.
 *
 * Only `offline` and `stopped` nodes whose last heartbeat (for a stopped node: its stop) is older than the cutoff and that
 * hold no running task (their leases come back through the reaper first) are
 * deleted. Lock: the rows themselves (DELETE re-checks the predicate on each
 * row it locks, so a node coming back online meanwhile is kept). Index:
 * worker_nodes_status_idx (status, last_heartbeat_at).
 * @param input.olderThanDays heartbeat age in days (TICKFLOW_NODE_RETENTION_DAYS, default 7)
 * @returns the deleted node ids
 */
import type { Db } from '../../db.ts';

/** TICKFLOW_NODE_RETENTION_DAYS (default 7, at least 1). */
export function nodeRetentionDays(): number {
  const v = Number(process.env.TICKFLOW_NODE_RETENTION_DAYS);
  return Number.isFinite(v) && v >= 1 ? Math.floor(v) : 7;
}

export async function deleteStaleNodes(db: Db, input: { olderThanDays?: number } = {}, now: Date = new Date()): Promise<string[]> {
  const cutoff = new Date(now.getTime() - (input.olderThanDays ?? nodeRetentionDays()) * 86_400_000);
  const rows = await db.$queryRaw<{ node_id: string }[]>`
    DELETE FROM worker_nodes w
     WHERE w.status IN ('offline', 'stopped') AND w.last_heartbeat_at < ${cutoff}
       AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.locked_by = w.node_id AND t.status = 'running')
    RETURNING w.node_id`;
  return rows.map((r) => r.node_id).sort();
}
