import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { WorkerNode } from '../generated/prisma/client.ts';

/** A node whose last heartbeat is older than this is shown as `stale` (likely dead; the reaper decides). */
export const HEARTBEAT_STALE_SECONDS = 60;

export type WorkerView = {
  nodeId: string;
  name: string;
  host: string;
  pid: number;
  group: string;
  labels: Record<string, string>;
  handlers: string[];
  status: 'online' | 'draining' | 'offline';
  /** status, except an online/draining node with a stale heartbeat shows as `stale` */
  effectiveStatus: 'online' | 'draining' | 'offline' | 'stale';
  lastHeartbeatAt: string;
  heartbeatAgeSeconds: number;
  runningTasks: number;
  cpuPercent: number | null;
  memoryMb: number | null;
  load1: number | null;
  version: string;
  startedAt: string;
};

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
    status: w.status,
    effectiveStatus: w.status !== 'offline' && age > HEARTBEAT_STALE_SECONDS ? 'stale' : w.status,
    lastHeartbeatAt: w.lastHeartbeatAt.toISOString(),
    heartbeatAgeSeconds: age,
    runningTasks: w.runningTasks,
    cpuPercent: w.cpuPercent,
    memoryMb: w.memoryMb,
    load1: w.load1,
    version: w.version,
    startedAt: w.startedAt.toISOString(),
  };
}

/** Worker nodes: online first, then draining, then offline; newest heartbeat first. */
export async function listWorkers(db: Db, actor: Actor, now = new Date()): Promise<WorkerView[]> {
  requireCan(actor, 'read');
  const rows = await db.workerNode.findMany({ orderBy: [{ status: 'asc' }, { lastHeartbeatAt: 'desc' }] });
  return rows.map((w) => toWorkerView(w, now));
}

/** Online nodes with a fresh heartbeat (for /health). */
export async function countOnlineWorkers(db: Db, now = new Date()): Promise<number> {
  return db.workerNode.count({
    where: { status: 'online', lastHeartbeatAt: { gte: new Date(now.getTime() - HEARTBEAT_STALE_SECONDS * 1000) } },
  });
}
