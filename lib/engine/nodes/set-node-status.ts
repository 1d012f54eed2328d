/**
 * Node status changes a worker makes about itself: `draining` when it stops
 * claiming (a SIGTERM drain), `stopped` when it exits cleanly. (`offline` is
 * the reaper's word for a node whose heartbeat was lost: mark-offline-nodes.ts.)
 * Single-row UPDATEs by primary key.
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

/**
 * Records a clean stop (docs/operations.md "Stopped or offline"): status `stopped`,
 * `stopped_at` = `now`, `stop_signal` = the signal that asked for it (null when the
 * embedding code called stop() itself). Also the last heartbeat, so the node's
 * retention (delete-stale-nodes.ts) counts from the stop. The reaper never marks a
 * stopped node offline (it only looks at online and draining nodes), so no
 * node_offline alarm follows a clean stop.
 * @returns false when the row is gone (deleted by retention or an operator)
 */
export async function markNodeStopped(
  db: Db,
  input: { nodeId: string; signal?: string | null; runningTasks?: number },
  now: Date = new Date(),
): Promise<boolean> {
  const n = await db.$executeRaw`
    UPDATE worker_nodes
       SET status = 'stopped',
           stopped_at = ${now},
           stop_signal = ${input.signal ?? null},
           last_heartbeat_at = ${now},
           running_tasks = COALESCE(${input.runningTasks ?? null}::integer, running_tasks)
     WHERE node_id = ${input.nodeId}`;
  return n > 0;
}
