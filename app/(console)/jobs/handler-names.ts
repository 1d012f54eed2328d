import type { Actor } from '@/lib/auth/actor';
import { requireCan } from '@/lib/auth/actor';
import { getDb } from '@/lib/db';
import { listWorkers } from '@/lib/workers';
import { loadHandlerCatalogue, type HandlerCatalogueEntry } from '@/lib/handlers/catalogue';
import { mergeHandlers } from '@/components/jobs/handlers';
import { log } from '@/lib/log';

/**
 * Handler names for the job form and DAG editor: the built-ins plus whatever online or
 * draining workers report (lib/workers listWorkers). A failure to read workers only
 * loses the extras, so the form still works.
 */
export async function loadHandlerNames(actor: Actor): Promise<string[]> {
  try {
    const workers = (await listWorkers(getDb(), actor)).items;
    return mergeHandlers(workers.filter((w) => w.effectiveStatus === 'online' || w.effectiveStatus === 'draining').flatMap((w) => w.handlers));
  } catch (e) {
    log('console').warn({ err: e }, 'could not list worker handlers');
    return mergeHandlers([]);
  }
}

/**
 * The handler catalogue (lib/handlers/catalogue.ts) for the job form and DAG editor, and the
 * names they offer: the built-ins, then every handler a registered worker advertised, live or
 * not (one no live worker offers is shown as unavailable, with when it was last offered).
 * A failure to read it only loses the extras.
 */
export async function loadHandlerCatalogueFor(actor: Actor): Promise<{ names: string[]; catalogue: HandlerCatalogueEntry[] }> {
  requireCan(actor, 'read');
  try {
    const catalogue = await loadHandlerCatalogue(getDb());
    return { names: mergeHandlers(catalogue.filter((e) => !e.builtin).map((e) => e.name)), catalogue };
  } catch (e) {
    log('console').warn({ err: e }, 'could not load the handler catalogue');
    return { names: mergeHandlers([]), catalogue: [] };
  }
}
