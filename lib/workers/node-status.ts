import type { NodeStatus } from '../engine/nodes/heartbeat-node.ts';

/**
 * The statuses of a node whose process is gone (docs/operations.md "Stopped or offline"):
 * `stopped` = it drained and exited cleanly (stoppedAt, stopSignal); `offline` = its
 * heartbeat was lost (a crash, kill -9, a machine gone) and the reaper marked it.
 * Neither can be drained or resumed, and neither ever counts as live.
 * Free of server imports: the console's workers table reads it too.
 */
export const GONE_STATUSES: readonly NodeStatus[] = ['offline', 'stopped'];

/** True for `offline` and `stopped` (GONE_STATUSES). */
export function isGone(status: NodeStatus): boolean {
  return GONE_STATUSES.includes(status);
}

/** What a node's heartbeat reports about its process: attempts running, load, CPU, memory. */
export type NodeFigures = { runningTasks: number; cpuPercent: number | null; memoryMb: number | null; load1: number | null };

/**
 * The figures a node is shown with (the Workers page, GET /api/v1/workers): those of its last heartbeat while it
 * may be live (`online`, `draining`, and `stale`, whose process may still be running them), none once it is
 * `stopped` or `offline`: no process runs there any more (a stopped node finished or handed back its tasks
 * before it exited; an offline node's come back through lease expiry), so its last "running 2" would be
 * history read as work. Gone: 0 running, and no load, CPU or memory (null).
 */
export function shownFigures(status: NodeStatus, last: NodeFigures): NodeFigures {
  return isGone(status) ? { runningTasks: 0, cpuPercent: null, memoryMb: null, load1: null } : last;
}

/** A node whose last heartbeat is older than this is shown as `stale` (likely dead; the reaper decides). */
export const HEARTBEAT_STALE_SECONDS = 60;

/** Every stored status of a node (worker_nodes.status), in the node_status enum's order. */
export const NODE_STATUSES = ['online', 'draining', 'offline', 'stopped'] as const satisfies readonly NodeStatus[];

/** The oldest heartbeat that still counts as live at `now` (HEARTBEAT_STALE_SECONDS): for the SQL that selects live nodes. */
export function heartbeatFreshSince(now: Date): Date {
  return new Date(now.getTime() - HEARTBEAT_STALE_SECONDS * 1000);
}

/**
 * The status a node is shown and counted under at `now` — on the Workers page, in the overview
 * and in the `tickflow_workers` metric (docs/operations.md "Stopped or offline"): its stored
 * status, except that an `online` or `draining` node whose last heartbeat is more than
 * HEARTBEAT_STALE_SECONDS old is `stale`: its process is most likely gone, but until the
 * reaper marks it `offline` nothing is sure. A stale node never counts as online.
 */
export function effectiveNodeStatus(status: NodeStatus, lastHeartbeatAt: Date, now: Date): NodeStatus | 'stale' {
  return !isGone(status) && lastHeartbeatAt < heartbeatFreshSince(now) ? 'stale' : status;
}

/** Every status a node is counted under (effectiveNodeStatus), in the Workers page's order. */
export const NODE_COUNT_STATUSES = ['online', 'draining', 'stale', 'offline', 'stopped'] as const;

/** How many of `nodes` count under each status at `now` (effectiveNodeStatus): the overview's and the metric's counts. */
export function countNodesByStatus(nodes: { status: NodeStatus; lastHeartbeatAt: Date }[], now: Date): Record<(typeof NODE_COUNT_STATUSES)[number], number> {
  const counts = { online: 0, draining: 0, stale: 0, offline: 0, stopped: 0 };
  for (const n of nodes) counts[effectiveNodeStatus(n.status, n.lastHeartbeatAt, now)] += 1;
  return counts;
}
