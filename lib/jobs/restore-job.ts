import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { computeNextRunAt } from './job-input.ts';
import type { JobView } from './job-view.ts';
import { loadGraph, lockJob, mapDbError, recordVersion } from './store.ts';
import { assertMayRestoreJob } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

/**
 * Restores a job from the recycle bin (deleted_at cleared, next_run_at
 * recomputed from `now`, new version `restore`).
 * @throws DomainError('conflict') (409, field `key`, detail.otherJobId) when a
 *   live job now uses the key; not_found when unknown; conflict when not deleted;
 *   forbidden when its handler needs more (lib/jobs/handler-permissions.ts).
 */
export async function restoreJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, id, 'only');
      const graph = await loadGraph(tx, job);
      assertMayRestoreJob(actor, { steps: graph.steps.map(stepView), jobPayload: job.payload });
      const other = await tx.job.findFirst({ where: { key: job.key, deletedAt: null } });
      if (other) {
        throw new DomainError(
          'conflict',
          `Cannot restore: key "${job.key}" is now used by job "${other.name}" (${other.id}). Rename or delete that job first.`,
          { key: `Used by job ${other.name} (${other.id})` },
          { otherJobId: other.id, otherJobName: other.name },
        );
      }
      const updated = await tx.job.update({
        where: { id: job.id },
        data: {
          deletedAt: null,
          deletedBy: null,
          nextRunAt: computeNextRunAt(job, now),
          version: { increment: 1 },
          updatedBy: actor.name,
          updatedAt: now,
        },
      });
      return recordVersion(tx, updated, 'restore', actor, opts.reason, now);
    });
  } catch (e) {
    mapDbError(e);
  }
}
