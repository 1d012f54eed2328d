import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { WorkerNode } from '../generated/prisma/client.ts';
import type { NodeStatus } from '../engine/nodes/heartbeat-node.ts';
import { effectiveNodeStatus, heartbeatFreshSince, shownFigures } from './node-status.ts';

export type WorkerView = {
  nodeId: string;
  name: string;
  host: string;
  pid: number;
  group: string;
  labels: Record<string, string>;
  handlers: string[];
  /** names of the secrets it holds for task settings, never their values (docs/security.md "Worker secrets") */
  secretNames: string[];
  /** `offline`: heartbeat lost (the reaper marked it); `stopped`: drained and exited cleanly */
  status: NodeStatus;
  /** status, except an online/draining node with a stale heartbeat shows as `stale` */
  effectiveStatus: NodeStatus | 'stale';
  /** for a `stopped` node: the last heartbeat is the stop itself */
  lastHeartbeatAt: string;
  heartbeatAgeSeconds: number;
  /** attempts running as of the last heartbeat; 0 for a `stopped` or `offline` node (shownFigures) */
  runningTasks: number;
  /** cpuPercent, memoryMb, load1: as of the last heartbeat; null for a `stopped` or `offline` node */
  cpuPercent: number | null;
  memoryMb: number | null;
  load1: number | null;
  version: string;
  startedAt: string;
  /** when the process stopped cleanly (ISO, status `stopped`); null otherwise */
  stoppedAt: string | null;
  /** the signal that asked for the clean stop (`SIGTERM`, `SIGINT`); null when not stopped or stopped in-process */
  stopSignal: string | null;
};

/** The API's and the console's view of one worker_nodes row at `now` (heartbeat age in whole seconds). */
export function toWorkerView(w: WorkerNode, now: Date): WorkerView {
  const age = Math.max(0, Math.round((now.getTime() - w.lastHeartbeatAt.getTime()) / 1000));
  return {
    nodeId: w.nodeId,
    name: w.name,
    host: w.host,
    pid: w.pid,
    group: w.group,
    labels: (w.labels ?? {}) as Record<string, string>,
    handlers: w.handlers,
    secretNames: w.secretNames,
    status: w.status,
    effectiveStatus: effectiveNodeStatus(w.status, w.lastHeartbeatAt, now),
    lastHeartbeatAt: w.lastHeartbeatAt.toISOString(),
    heartbeatAgeSeconds: age,
    // a stopped or offline node runs nothing: its last heartbeat's figures are not shown as current (node-status.ts)
    ...shownFigures(w.status, { runningTasks: w.runningTasks, cpuPercent: w.cpuPercent, memoryMb: w.memoryMb, load1: w.load1 }),
    version: w.version,
    startedAt: w.startedAt.toISOString(),
    stoppedAt: w.status === 'stopped' && w.stoppedAt ? w.stoppedAt.toISOString() : null,
    stopSignal: w.status === 'stopped' ? w.stopSignal : null,
  };
}

/** Most stopped or offline nodes listed, newest heartbeat first: they are history, kept TICKFLOW_NODE_RETENTION_DAYS. */
export const ENDED_WORKERS_LISTED = 100;

/** The workers list: every online or draining node, the newest ended ones, and how many ended ones were left out. */
export type WorkerList = { items: WorkerView[]; endedNotListed: number };

/**
 * Worker nodes: online first, then draining, then offline (heartbeat lost), then stopped
 * (clean stop; the node_status enum's order); newest heartbeat first within each. Every live node
 * is listed; of the ended ones (offline, stopped) only the newest ENDED_WORKERS_LISTED: an
 * autoscaled fleet leaves thousands of them within the retention, and the console refreshes the
 * list every 5 s.
 * @throws DomainError forbidden
 */
export async function listWorkers(db: Db, actor: Actor, now = new Date()): Promise<WorkerList> {
  requireCan(actor, 'read');
  const ended = { status: { in: ['offline', 'stopped'] as NodeStatus[] } };
  const [live, endedRows, endedCount] = await Promise.all([
    db.workerNode.findMany({ where: { status: { notIn: ['offline', 'stopped'] } }, orderBy: [{ status: 'asc' }, { lastHeartbeatAt: 'desc' }] }),
    db.workerNode.findMany({ where: ended, orderBy: [{ lastHeartbeatAt: 'desc' }], take: ENDED_WORKERS_LISTED }),
    db.workerNode.count({ where: ended }),
  ]);
  const byStatus = (a: WorkerNode, b: WorkerNode) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status) || b.lastHeartbeatAt.getTime() - a.lastHeartbeatAt.getTime();
  return { items: [...live, ...endedRows.sort(byStatus)].map((w) => toWorkerView(w, now)), endedNotListed: Math.max(0, endedCount - endedRows.length) };
}

/** The node_status enum's order (prisma/schema.prisma), which the list follows. */
const STATUS_ORDER: NodeStatus[] = ['online', 'draining', 'offline', 'stopped'];

/** Online nodes with a fresh heartbeat (for /health). */
export async function countOnlineWorkers(db: Db, now = new Date()): Promise<number> {
  return db.workerNode.count({
    where: { status: 'online', lastHeartbeatAt: { gte: heartbeatFreshSince(now) } },
  });
}
