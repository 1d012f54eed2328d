import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { JobView } from './job-view.ts';
import { jobAnswer, loadGraph, lockJob, recordVersion } from './store.ts';

/**
 * Pauses a job (status `paused`; the tick skips it; next_run_at is kept and
 * recomputed on resume). New version, change_type `pause`. Pausing a paused job
 * changes nothing and returns it.
 */
export async function pauseJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  return inTransaction(db, async (tx) => {
    const job = await lockJob(tx, id);
    if (job.status === 'paused') {
      const g = await loadGraph(tx, job);
      return jobAnswer(tx, g);
    }
    const updated = await tx.job.update({
      where: { id: job.id },
      data: { status: 'paused', version: { increment: 1 }, updatedBy: actor.name, updatedAt: now },
    });
    return recordVersion(tx, updated, 'pause', actor, opts.reason, now);
  });
}
