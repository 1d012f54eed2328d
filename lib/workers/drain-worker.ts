import { getDb, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { log } from '../log.ts';
import { toWorkerView, type WorkerView } from './list-workers.ts';

/**
 * Drains a node: status `draining`. The worker reads its own row on heartbeat,
 * stops claiming new tasks, finishes the running ones and exits/marks itself
 * offline. Draining a draining node is a no-op; an offline node is a 409.
 */
export async function drainWorker(db: Db = getDb(), nodeId: string, actor: Actor, now = new Date()): Promise<WorkerView> {
  requireCan(actor, 'workers.write');
  const node = await db.workerNode.findUnique({ where: { nodeId } });
  if (!node) throw new DomainError('not_found', `Worker ${nodeId} not found`);
  if (node.status === 'offline') throw new DomainError('conflict', `Worker ${node.name} is offline`);
  if (node.status === 'draining') return toWorkerView(node, now);
  const updated = await db.workerNode.update({ where: { nodeId }, data: { status: 'draining' } });
  log('workers').info({ nodeId, actor: actor.name }, 'worker drain requested');
  return toWorkerView(updated, now);
}
