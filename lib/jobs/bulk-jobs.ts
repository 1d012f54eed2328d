import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { BulkJobsInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { deleteJob } from './delete-job.ts';
import type { JobView } from './job-view.ts';
import { pauseJob } from './pause-job.ts';
import { resumeJob } from './resume-job.ts';

export type BulkAction = 'pause' | 'resume' | 'delete';

/**
 * Pauses, resumes or deletes several jobs in ONE transaction (all or nothing:
 * an unknown id fails the whole batch with 404). Ids are locked in sorted order
 * so two concurrent bulk operations cannot deadlock. Input `{ ids, reason? }`.
 */
export async function bulkJobs(db: Db, action: BulkAction, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView[]> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(BulkJobsInput, rawInput);
  const ids = [...new Set(input.ids)].sort();
  const op = action === 'pause' ? pauseJob : action === 'resume' ? resumeJob : deleteJob;
  return inTransaction(db, async (tx) => {
    const out: JobView[] = [];
    for (const id of ids) out.push(await op(tx, id, actor, { reason: input.reason }, now));
    return out;
  });
}
