import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { log } from '../log.ts';
import type { WorkerNode } from '../generated/prisma/client.ts';
import { toWorkerView, type WorkerView } from './list-workers.ts';
import { heartbeatFreshSince, isGone } from './node-status.ts';

/** What draining the last online worker does, in the words the API and the console show. */
export const LAST_WORKER_CONSEQUENCE =
  'no schedule fires and no task runs until a worker is resumed or another one starts';

/**
 * The 409 for draining or resuming a node whose process is gone (GONE_STATUSES): it says
 * whether the process stopped cleanly (when, on which signal) or its heartbeat was lost, and
 * that only starting a process again brings a worker back (a restart registers a new node).
 */
function goneConflict(node: WorkerNode, action: 'drain' | 'resume'): DomainError {
  const name = node.name || node.nodeId;
  const what =
    node.status === 'stopped'
      ? `it stopped cleanly${node.stopSignal ? ` on ${node.stopSignal}` : ''} at ${(node.stoppedAt ?? node.lastHeartbeatAt).toISOString()}`
      : `it is offline: no heartbeat since ${node.lastHeartbeatAt.toISOString()} (it crashed, was killed, or its machine is gone)`;
  return new DomainError('conflict', `Cannot ${action} worker ${name}: ${what}. Start the worker process again instead.`, undefined, { status: node.status });
}

/**
 * Drains a node: status `draining`. The worker reads its own row on heartbeat,
 * stops claiming and ticking, and finishes the running tasks; resumeWorker
 * undoes it. Draining a draining node is a no-op; an offline or stopped node is a
 * 409 saying which (goneConflict, detail.status).
 * Draining the last online node (fresh heartbeat) is refused with 409
 * `detail.lastWorker` unless `confirmLastWorker` is true, because then
 * LAST_WORKER_CONSEQUENCE.
 * @throws DomainError not_found, conflict, forbidden.
 */
export async function drainWorker(
  db: Db,
  nodeId: string,
  actor: Actor,
  now = new Date(),
  opts: { confirmLastWorker?: boolean } = {},
): Promise<WorkerView> {
  requireCan(actor, 'workers.write');
  return inTransaction(db, async (tx) => {
    // one drain at a time, so two operators cannot each drain "not the last" worker
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(72707370)`;
    const node = await tx.workerNode.findUnique({ where: { nodeId } });
    if (!node) throw new DomainError('not_found', `Worker ${nodeId} not found`);
    if (isGone(node.status)) throw goneConflict(node, 'drain');
    if (node.status === 'draining') return toWorkerView(node, now);
    const others = await tx.workerNode.count({ where: { status: 'online', lastHeartbeatAt: { gte: heartbeatFreshSince(now) }, nodeId: { not: nodeId } } });
    if (others === 0 && !opts.confirmLastWorker) {
      throw new DomainError(
        'conflict',
        `${node.name || nodeId} is the last online worker: draining it means ${LAST_WORKER_CONSEQUENCE}. Confirm to drain it anyway (confirmLastWorker: true).`,
        { confirmLastWorker: 'Required to drain the last online worker' },
        { lastWorker: true, consequence: LAST_WORKER_CONSEQUENCE },
      );
    }
    const updated = await tx.workerNode.update({ where: { nodeId }, data: { status: 'draining' } });
    log('workers').info({ nodeId, actor: actor.name, last: others === 0 }, 'worker drain requested');
    return toWorkerView(updated, now);
  });
}

/**
 * Undoes a drain: a `draining` node becomes `online` again and, on its next
 * heartbeat, claims and ticks again (worker/create-worker.ts). Resuming an online
 * node is a no-op; an offline or stopped node (the process is gone) is a 409 saying which.
 * A node that is draining because its process was told to stop (SIGTERM) exits anyway.
 * @throws DomainError not_found, conflict, forbidden.
 */
export async function resumeWorker(db: Db, nodeId: string, actor: Actor, now = new Date()): Promise<WorkerView> {
  requireCan(actor, 'workers.write');
  // The compare-and-set first: what is read after a refused one is the node as it is now, so a
  // process that stops while the operator resumes it answers 409, never a stale 'draining'.
  const rows = await db.workerNode.updateManyAndReturn({ where: { nodeId, status: 'draining' }, data: { status: 'online' } });
  if (rows[0]) {
    log('workers').info({ nodeId, actor: actor.name }, 'worker resumed');
    return toWorkerView(rows[0], now);
  }
  const node = await db.workerNode.findUnique({ where: { nodeId } });
  if (!node) throw new DomainError('not_found', `Worker ${nodeId} not found`);
  if (isGone(node.status)) throw goneConflict(node, 'resume');
  return toWorkerView(node, now);
}
