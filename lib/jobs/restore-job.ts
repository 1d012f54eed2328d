import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { canFireProblem, computeNextRunAt } from './job-input.ts';
import type { JobView } from './job-view.ts';
import { isUniqueViolation, liveKeyHolder, loadGraph, lockJob, mapDbError, recordVersion } from './store.ts';
import { assertMayRestoreJob } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

/** The start of the last_error a restore writes on a job it brings back paused (restoreNotice). */
const RESTORED_PAUSED = 'Restored paused: ';

/**
 * Restores a job from the recycle bin (deleted_at cleared, next_run_at
 * recomputed from `now`, new version `restore`).
 * An active job whose schedule can no longer fire (a `once` whose run-at passed while it was in the
 * bin, an `endAt` that passed, a cron with no fire time left inside its window: the rule of save and
 * resume, job-input.ts canFireProblem) comes back **paused**, with last_error saying why and what to
 * do ("Restored paused: schedule.runAt: Is in the past: this job would never fire; change its
 * schedule, then resume it"), and the same words in the version's reason: it never shows as active
 * without a fire to come, and nothing is fired or recorded as missed. Resume refuses it until its
 * schedule is changed (resume-job.ts). A paused or dead-lettered job keeps its status.
 * @throws DomainError('conflict') (409, field `key`, detail.otherJobId) when a
 *   live job now uses the key; not_found when unknown; conflict when not deleted;
 *   forbidden when its handler needs more, or at `key` when its key is a reserved `system.` one and it is
 *   not a system job (lib/jobs/handler-permissions.ts).
 */
export async function restoreJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  let key: string | undefined;
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, id, 'only');
      key = job.key;
      const graph = await loadGraph(tx, job);
      assertMayRestoreJob(actor, { steps: graph.steps.map(stepView), jobPayload: job.payload }, job.key);
      const other = await liveKeyHolder(tx, job.key, job.id);
      if (other) throw keyHeldError(job.key, other);
      const problem = job.status === 'active' ? canFireProblem(job, now) : null;
      const notice = problem ? `${RESTORED_PAUSED}${problem.field}: ${problem.message}; change its schedule, then resume it` : null;
      const updated = await tx.job.update({
        where: { id: job.id },
        data: {
          deletedAt: null,
          deletedBy: null,
          nextRunAt: computeNextRunAt(job, now),
          ...(notice ? { status: 'paused' as const, lastError: notice } : {}),
          version: { increment: 1 },
          updatedBy: actor.name,
          updatedAt: now,
        },
      });
      const reason = notice ? (opts.reason ? `${opts.reason} (${notice})` : notice) : opts.reason;
      return recordVersion(tx, updated, 'restore', actor, reason, now);
    });
  } catch (e) {
    // a job that took the key after the check above (its insert not yet committed then): the same answer,
    // read after the refused transaction ended
    const other = key !== undefined && isUniqueViolation(e) ? await liveKeyHolder(db, key, id) : null;
    if (other) throw keyHeldError(key!, other);
    mapDbError(e);
  }
}

/** The 409 of a restore whose key a live job holds (`key`, detail.otherJobId and otherJobName). */
function keyHeldError(key: string, other: { id: string; name: string }): DomainError {
  return new DomainError(
    'conflict',
    `Cannot restore: key "${key}" is now used by job "${other.name}" (${other.id}). Rename or delete that job first.`,
    { key: `Used by job ${other.name} (${other.id})` },
    { otherJobId: other.id, otherJobName: other.name },
  );
}

/**
 * What an operator should be told after a restore: the job's last_error when the restore brought it back
 * paused because its schedule can no longer fire (restoreJob), else null.
 */
export function restoreNotice(job: Pick<JobView, 'status' | 'lastError'>): string | null {
  return job.status === 'paused' && job.lastError?.startsWith(RESTORED_PAUSED) ? job.lastError : null;
}
