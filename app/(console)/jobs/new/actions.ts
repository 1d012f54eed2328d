'use server';

import { redirect } from 'next/navigation';
import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { CreateJobInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { createJob } from '@/lib/jobs/create-job';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/**
 * "Create job": operator+, parse with lib/api CreateJobInput, lib/jobs createJob, then
 * open the new job. Field errors come back keyed by dotted path (schedule.cron, payload…).
 */
export async function createJobAction(input: unknown): Promise<ActionResult<{ id: string }>> {
  let id: string;
  try {
    const actor = await requireActionActor('operator');
    const parsed = CreateJobInput.safeParse(input);
    if (!parsed.success) return invalid(parsed.error);
    id = (await createJob(getDb(), parsed.data, actor)).id;
  } catch (error) {
    return toActionError(error, 'Create job');
  }
  revalidatePath('/jobs');
  redirect(`/jobs/${id}`);
}
