/**
 * One node heartbeat: stamps last_heartbeat_at and the load figures, and returns
 * the node's status as stored, so an operator's drain (set from the console)
 * reaches the worker on its next beat.
 *
 * A node wrongly marked `offline` (e.g. a long pause) that beats again comes
 * back `online`; its old leases were already reclaimed or still hold, and stale
 * completions are refused by the engine either way. `draining` is kept, and so
 * is `stopped` (a beat in flight while the process stops must not revive it).
 * Single-row UPDATE by primary key.
 */
import type { Db } from '../../db.ts';

/** worker_nodes.status (prisma/schema.prisma NodeStatus): `offline` = heartbeat lost, `stopped` = clean stop. */
export type NodeStatus = 'online' | 'draining' | 'offline' | 'stopped';

export interface HeartbeatInput {
  nodeId: string;
  runningTasks: number;
  cpuPercent?: number | null;
  memoryMb?: number | null;
  load1?: number | null;
}

/** Returns the node's status after the beat, or null when the row is gone (deleted by an operator). */
export async function heartbeatNode(db: Db, input: HeartbeatInput, now: Date = new Date()): Promise<NodeStatus | null> {
  const rows = await db.$queryRaw<{ status: NodeStatus }[]>`
    UPDATE worker_nodes
       SET last_heartbeat_at = ${now},
           running_tasks = ${input.runningTasks},
           cpu_percent = ${input.cpuPercent ?? null}::double precision,
           memory_mb = ${input.memoryMb ?? null}::double precision,
           load_1 = ${input.load1 ?? null}::double precision,
           status = CASE WHEN status = 'offline' THEN 'online'::node_status ELSE status END
     WHERE node_id = ${input.nodeId}
     RETURNING status::text AS status`;
  return rows[0]?.status ?? null;
}
