'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { importCrontab, type ImportCrontabResult } from '@/lib/jobs/import-crontab';
import { toActionError, type ActionResult } from '@/app/_actions/result';

/**
 * "Import crontab": operator+, lib/jobs importCrontab (which parses the input with
 * ImportCrontabInput). `dryRun: true` is the preview: nothing is written. Field errors
 * come back keyed `text`, `timezone`, `keyPrefix`.
 */
export async function importCrontabAction(input: unknown): Promise<ActionResult<ImportCrontabResult>> {
  try {
    const actor = await requireActionActor('operator');
    const result = await importCrontab(getDb(), input, actor);
    if (!result.dryRun && result.created.length) revalidatePath('/jobs');
    return { ok: true, data: result };
  } catch (error) {
    return toActionError(error, 'Import crontab');
  }
}
