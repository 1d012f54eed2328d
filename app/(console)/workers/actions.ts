'use server';

import { DrainWorkerInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { DomainError } from '@/lib/errors';
import { drainWorker, resumeWorker } from '@/lib/workers';
import { defineAction } from '@/app/_actions/define-action';

function nodeIdOf(nodeId: unknown): string {
  if (typeof nodeId !== 'string' || !nodeId || nodeId.length > 200) throw new DomainError('validation', 'Invalid node id', { nodeId: 'Invalid node id' });
  return nodeId;
}

/**
 * "Drain": the node finishes its running tasks and claims no new ones (lib/workers
 * drainWorker). The last online worker needs `{ confirmLastWorker: true }`: without it
 * the result is a conflict with detail.lastWorker and the consequence to show.
 */
export const drainWorkerAction = defineAction(
  'workers.drain',
  'Drain',
  async ({ db, actor }, nodeId: string, input?: { confirmLastWorker?: boolean }) => {
    const w = await drainWorker(db, nodeIdOf(nodeId), actor, new Date(), parseOrThrow(DrainWorkerInput, input ?? {}));
    return { status: w.status };
  },
  { revalidate: () => ['/workers'] },
);

/** "Resume": undoes a drain (lib/workers resumeWorker). */
export const resumeWorkerAction = defineAction(
  'workers.resume',
  'Resume',
  async ({ db, actor }, nodeId: string) => ({ status: (await resumeWorker(db, nodeIdOf(nodeId), actor)).status }),
  { revalidate: () => ['/workers'] },
);
