import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { JobView } from './job-view.ts';
import { loadGraph, lockJob, recordVersion } from './store.ts';
import { assertMayDeleteJob } from './handler-permissions.ts';
import { stepView } from './job-view.ts';

/**
 * Soft-deletes a job into the recycle bin: deleted_at/deleted_by set, new
 * version (change_type `delete`). next_run_at stays; the tick ignores deleted
 * jobs. Its key becomes free for a new job. Its runs that have not started (queued, created ahead,
 * held by a worker) are cancelled (recordVersion: lib/engine/cancel-ahead-runs.ts cancelQueuedRuns);
 * runs already going finish.
 * @throws DomainError('not_found') for an unknown or already deleted job; ('forbidden') for a
 *   system job (handler-permissions.ts assertMayDeleteJob).
 */
export async function deleteJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  return inTransaction(db, async (tx) => {
    const job = await lockJob(tx, id);
    assertMayDeleteJob(actor, { steps: (await loadGraph(tx, job)).steps.map(stepView), jobPayload: job.payload });
    const updated = await tx.job.update({
      where: { id: job.id },
      data: { deletedAt: now, deletedBy: actor.name, version: { increment: 1 }, updatedBy: actor.name, updatedAt: now },
    });
    return recordVersion(tx, updated, 'delete', actor, opts.reason, now);
  });
}
