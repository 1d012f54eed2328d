'use server';

import { redirect } from 'next/navigation';
import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { IdParams, UpdateJobInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { updateJob } from '@/lib/jobs/update-job';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/**
 * "Save" on the edit form: operator+, parse with lib/api UpdateJobInput (carries
 * `expectedVersion`), lib/jobs updateJob. A stale version comes back as code 'conflict'
 * with detail { currentVersion, changedFields, diff, changedBy } for the form's banner.
 */
export async function updateJobAction(id: string, input: unknown): Promise<ActionResult<{ id: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const parsed = UpdateJobInput.safeParse(input);
    if (!parsed.success) return invalid(parsed.error);
    await updateJob(getDb(), IdParams.parse({ id }).id, parsed.data, actor);
  } catch (error) {
    return toActionError(error, 'Save job');
  }
  revalidatePath(`/jobs/${id}`);
  revalidatePath('/jobs');
  redirect(`/jobs/${id}`);
}
