import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DomainError } from '../errors.ts';
import { assertCanFire, computeNextRunAt } from './job-input.ts';
import type { JobView } from './job-view.ts';
import { jobAnswer, loadGraph, lockJob, recordVersion } from './store.ts';

/**
 * Resumes a paused or dead-lettered job: status `active`, consecutive_failures
 * 0, last_error cleared, next_run_at recomputed from `now` (no catch-up of the
 * paused period). New version, change_type `resume`. Resuming an active job
 * changes nothing.
 * @throws DomainError('validation') naming the schedule field when the job could
 *   never fire again (a `once` whose run-at has passed — it already fired —, a
 *   window that has ended): it would show as active and never run. The message
 *   names the job, for bulk resumes.
 */
export async function resumeJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  return inTransaction(db, async (tx) => {
    const job = await lockJob(tx, id);
    if (job.status === 'active' && job.consecutiveFailures === 0) {
      const g = await loadGraph(tx, job);
      return jobAnswer(tx, g);
    }
    try {
      assertCanFire(job, now);
    } catch (e) {
      if (e instanceof DomainError && e.code === 'validation') {
        throw new DomainError('validation', `Job ${job.key} cannot be resumed: ${e.message.replace(/^Invalid /, '')}; change its schedule first`, e.fields);
      }
      throw e;
    }
    const updated = await tx.job.update({
      where: { id: job.id },
      data: {
        status: 'active',
        consecutiveFailures: 0,
        lastError: null,
        nextRunAt: computeNextRunAt(job, now),
        version: { increment: 1 },
        updatedBy: actor.name,
        updatedAt: now,
      },
    });
    return recordVersion(tx, updated, 'resume', actor, opts.reason, now);
  });
}
