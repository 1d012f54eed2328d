/**
 * Marks nodes whose heartbeat is older than a threshold `offline` and raises one
 * `node_offline` alarm (channel `log`) per node so marked, in one statement.
 *
 * Lock: the UPDATE's WHERE re-checks status and heartbeat age on each row it
 * locks, so two reapers racing mark (and alarm) each node once. Index:
 * worker_nodes_status_idx (status, last_heartbeat_at).
 * Tasks of an offline node are NOT touched here: they come back through lease
 * expiry (reclaimExpiredLeases), the one path that decides retry or dead.
 */
import { Prisma, type Db } from '../../db.ts';
import { isoUtcSql } from '../sql/iso-utc.ts';

// the heartbeat's instant as every instant the API gives: ISO-8601 UTC (lib/engine/sql/iso-utc.ts)
const LAST_HEARTBEAT = Prisma.raw(isoUtcSql('last_heartbeat_at'));

export interface OfflineNode {
  nodeId: string;
  name: string;
  host: string;
  lastHeartbeatAt: Date;
}

export async function markOfflineNodes(
  db: Db,
  input: { offlineAfterSeconds: number; limit?: number },
  now: Date = new Date(),
): Promise<OfflineNode[]> {
  const cutoff = new Date(now.getTime() - input.offlineAfterSeconds * 1000);
  const limit = input.limit ?? 100;
  const rows = await db.$queryRaw<{ node_id: string; name: string; host: string; last_heartbeat_at: Date }[]>`
    WITH gone AS (
      UPDATE worker_nodes w
         SET status = 'offline'
       WHERE w.node_id IN (
               SELECT node_id FROM worker_nodes
                WHERE status IN ('online', 'draining') AND last_heartbeat_at < ${cutoff}
                ORDER BY last_heartbeat_at
                LIMIT ${limit}
                FOR UPDATE SKIP LOCKED)
         AND w.status IN ('online', 'draining') AND w.last_heartbeat_at < ${cutoff}
      RETURNING w.node_id, w.name, w.host, w.last_heartbeat_at, w.running_tasks
    ), alarm AS (
      INSERT INTO alarms (type, level, channel, target, content, status, created_at, updated_at, next_attempt_at)
      SELECT 'node_offline', 'warning', 'log', node_id,
             jsonb_build_object('nodeId', node_id, 'name', name, 'host', host,
                                'lastHeartbeatAt', ${LAST_HEARTBEAT}, 'runningTasks', running_tasks,
                                'message', 'worker node ' || name || ' (' || node_id || ') missed heartbeats since ' || ${LAST_HEARTBEAT}),
             'pending', ${now}, ${now}, ${now}
        FROM gone
    )
    SELECT node_id, name, host, last_heartbeat_at FROM gone`;
  return rows.map((r) => ({ nodeId: r.node_id, name: r.name, host: r.host, lastHeartbeatAt: r.last_heartbeat_at }));
}
