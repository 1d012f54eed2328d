/**
 * Sets a node's status: `draining` when a worker stops claiming (SIGTERM),
 * `offline` on a clean exit. Single-row UPDATE by primary key.
 */
import type { Db } from '../../db.ts';
import type { NodeStatus } from './heartbeat-node.ts';

export async function setNodeStatus(
  db: Db,
  input: { nodeId: string; status: NodeStatus; runningTasks?: number },
  now: Date = new Date(),
): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE worker_nodes
       SET status = ${input.status}::node_status,
           last_heartbeat_at = ${now},
           running_tasks = COALESCE(${input.runningTasks ?? null}::integer, running_tasks)
     WHERE node_id = ${input.nodeId}`;
  return n > 0;
}
