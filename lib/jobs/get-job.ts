import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { nextFireTimesOf, toJobView, type JobView } from './job-view.ts';
import { findJob, loadGraph } from './store.ts';
import { aheadSlotOf, selectAheadSlots } from '../engine/sql/ahead-runs.ts';
import { selectLastRun } from '../engine/sql/last-runs.ts';

export type JobDetail = JobView & {
  /** next 5 nominal fire times after `now` (UTC ISO) as the schedule would fire (also for paused jobs); empty for manual/exhausted */
  nextFireTimes: string[];
};

/**
 * A job with steps, edges and its next 5 fire times (nominal, UTC), its next fire by the rule of docs/on-time.md
 * "Next fire" (`nextFireAt`: a run created ahead of a slot still to come at `now` counts), its last run with that
 * run's own status (lib/engine/sql/last-runs.ts). Jobs in the
 * recycle bin are returned too (deletedAt set) so the bin can show them.
 * @throws DomainError('not_found') for an unknown or malformed id.
 */
export async function getJob(db: Db, id: string, actor: Actor, now = new Date()): Promise<JobDetail> {
  requireCan(actor, 'read');
  const job = await findJob(db, id, 'allow');
  const [g, ahead, lastRun] = await Promise.all([loadGraph(db, job), selectAheadSlots(db, [job.id], now), selectLastRun(db, job)]);
  return { ...toJobView(g.job, g.steps, g.edges, { aheadSlot: aheadSlotOf(ahead, job.id), lastRun }), nextFireTimes: nextFireTimesOf(job, now, 5) };
}

/** getJob by key (live jobs only). */
export async function getJobByKey(db: Db, key: string, actor: Actor, now = new Date()): Promise<JobDetail> {
  requireCan(actor, 'read');
  const job = await db.job.findFirst({ where: { key, deletedAt: null } });
  if (!job) throw new DomainError('not_found', `Job ${key} not found`);
  return getJob(db, job.id, actor, now);
}
