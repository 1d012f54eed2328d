'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { restoreJob } from '@/lib/jobs/restore-job';
import { purgeJob } from '@/lib/jobs/purge-job';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/** "Restore": lib/jobs restoreJob. A key now used by a live job comes back as a conflict on field `key`. */
export async function restoreJobAction(id: string, reason?: string): Promise<ActionResult<{ id: string; key: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = ReasonInput.safeParse({ reason });
    if (!p.success) return invalid(p.error);
    const job = await restoreJob(getDb(), IdParams.parse({ id }).id, actor, p.data);
    revalidatePath('/recycle-bin');
    revalidatePath('/jobs');
    return { ok: true, data: { id: job.id, key: job.key } };
  } catch (error) {
    return toActionError(error, 'Restore');
  }
}

/** "Purge": deletes the job for good (lib/jobs purgeJob); its runs and logs stay by string reference. */
export async function purgeJobAction(id: string): Promise<ActionResult<{ key: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const r = await purgeJob(getDb(), IdParams.parse({ id }).id, actor);
    revalidatePath('/recycle-bin');
    return { ok: true, data: { key: r.key } };
  } catch (error) {
    return toActionError(error, 'Purge');
  }
}
