'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { BulkJobsInput } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { bulkJobs, type BulkAction } from '@/lib/jobs/bulk-jobs';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/** Bulk Pause / Resume / Delete from the jobs list: lib/jobs bulkJobs (one transaction, all or nothing). */
export async function bulkJobsAction(action: BulkAction, ids: string[]): Promise<ActionResult<{ count: number }>> {
  try {
    const actor = await requireActionActor('operator');
    if (action !== 'pause' && action !== 'resume' && action !== 'delete') return { ok: false, error: 'Unknown bulk action' };
    const parsed = BulkJobsInput.safeParse({ ids });
    if (!parsed.success) return invalid(parsed.error);
    const jobs = await bulkJobs(getDb(), action, parsed.data, actor);
    revalidatePath('/jobs');
    if (action === 'delete') revalidatePath('/recycle-bin');
    return { ok: true, data: { count: jobs.length } };
  } catch (error) {
    return toActionError(error, `Bulk ${action}`);
  }
}
