'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { backfillJob, previewBackfill, type BackfillPreview, type BackfillResult } from '@/lib/jobs/backfill-job';
import { toActionError, type ActionResult } from '@/app/_actions/result';

// Operator doors onto lib/jobs backfill-job (the same functions as POST
// /jobs/:id/backfill[/preview]; docs/recovery.md). Input is checked there.

/** The slots a backfill of `{ from, to }` (ISO instants) would create or skip; writes nothing. */
export async function previewBackfillAction(jobId: string, input: { from: string; to: string }): Promise<ActionResult<BackfillPreview>> {
  try {
    const actor = await requireActionActor('operator');
    return { ok: true, data: await previewBackfill(getDb(), jobId, input, actor) };
  } catch (error) {
    return toActionError(error, 'Backfill preview');
  }
}

/** Creates the backfill runs (queued one after the other) and the audit row. */
export async function backfillJobAction(jobId: string, input: { from: string; to: string; reason?: string }): Promise<ActionResult<BackfillResult>> {
  try {
    const actor = await requireActionActor('operator');
    const r = await backfillJob(getDb(), jobId, input.reason ? input : { from: input.from, to: input.to }, actor);
    revalidatePath(`/jobs/${jobId}`);
    revalidatePath('/runs');
    return { ok: true, data: r };
  } catch (error) {
    return toActionError(error, 'Backfill');
  }
}
