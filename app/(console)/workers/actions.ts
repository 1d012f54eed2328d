'use server';

import { DrainWorkerInput } from '@/lib/api/schemas';
import { z } from 'zod';
import { drainWorker, resumeWorker } from '@/lib/workers';
import { actionArgs, defineAction } from '@/app/_actions/define-action';

const NodeIdArg = z.string({ error: 'Invalid node id' }).min(1, { error: 'Invalid node id' }).max(200, { error: 'Invalid node id' });

/**
 * "Drain": the node finishes its running tasks and claims no new ones (lib/workers
 * drainWorker). The last online worker needs `{ confirmLastWorker: true }`: without it
 * the result is a conflict with detail.lastWorker and the consequence to show.
 */
export const drainWorkerAction = defineAction(
  'workers.drain',
  'Drain',
  actionArgs(['nodeId', NodeIdArg], ['input', DrainWorkerInput.optional()]),
  async ({ db, actor }, nodeId: string, input?: { confirmLastWorker?: boolean }) => {
    const w = await drainWorker(db, nodeId, actor, new Date(), input ?? {});
    return { status: w.status };
  },
  { revalidate: () => ['/workers'] },
);

/** "Resume": undoes a drain (lib/workers resumeWorker). */
export const resumeWorkerAction = defineAction(
  'workers.resume',
  'Resume',
  actionArgs(['nodeId', NodeIdArg]),
  async ({ db, actor }, nodeId: string) => ({ status: (await resumeWorker(db, nodeId, actor)).status }),
  { revalidate: () => ['/workers'] },
);
