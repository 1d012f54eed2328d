import type { Actor } from '@/lib/auth/actor';
import { getDb } from '@/lib/db';
import { listWorkers } from '@/lib/workers';
import { mergeHandlers } from '@/components/jobs/handlers';
import { log } from '@/lib/log';

/**
 * Handler names for the job form and DAG editor: the built-ins plus whatever online or
 * draining workers report (lib/workers listWorkers). A failure to read workers only
 * loses the extras, so the form still works.
 */
export async function loadHandlerNames(actor: Actor): Promise<string[]> {
  try {
    const workers = await listWorkers(getDb(), actor);
    return mergeHandlers(workers.filter((w) => w.effectiveStatus === 'online' || w.effectiveStatus === 'draining').flatMap((w) => w.handlers));
  } catch (e) {
    log('console').warn({ err: e }, 'could not list worker handlers');
    return mergeHandlers([]);
  }
}
