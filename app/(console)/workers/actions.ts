'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { drainWorker } from '@/lib/workers';
import { toActionError, type ActionResult } from '@/app/_actions/result';

/** "Drain": the node finishes its running tasks and claims no new ones (lib/workers drainWorker). */
export async function drainWorkerAction(nodeId: string): Promise<ActionResult<{ status: string }>> {
  try {
    const actor = await requireActionActor('operator');
    if (typeof nodeId !== 'string' || !nodeId || nodeId.length > 200) return { ok: false, error: 'Invalid node id', fields: { nodeId: 'Invalid node id' } };
    const w = await drainWorker(getDb(), nodeId, actor);
    revalidatePath('/workers');
    return { ok: true, data: { status: w.status } };
  } catch (error) {
    return toActionError(error, 'Drain');
  }
}
