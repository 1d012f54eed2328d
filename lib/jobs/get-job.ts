import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { nextFireOf, nextFireTimesOf, toJobView, type JobView } from './job-view.ts';
import { computeNextRunAt } from './job-input.ts';
import { findJob, loadGraph } from './store.ts';
import { aheadSlotOf, selectAheadSlots } from '../engine/sql/ahead-runs.ts';
import { selectLastRun } from '../engine/sql/last-runs.ts';

export type JobDetail = JobView & {
  /**
   * the next 5 fires (UTC ISO) as due instants, slot + stagger, from `nextFireAt` (job-view.ts nextFireTimesOf); for a
   * paused, dead-letter or deleted job those a resume or restore at `now` would fire; empty for manual/exhausted
   */
  nextFireTimes: string[];
};

/**
 * A job with steps, edges and its next 5 fire times (due instants: slot + stagger, UTC), its next fire by the rule of docs/on-time.md
 * "Next fire" (`nextFireAt`: a run created ahead of a slot still to come at `now` counts), its last run with that
 * run's own status (lib/engine/sql/last-runs.ts). Jobs in the
 * recycle bin are returned too (deletedAt set) so the bin can show them.
 * @throws DomainError('not_found') for an unknown or malformed id.
 */
export async function getJob(db: Db, id: string, actor: Actor, now = new Date()): Promise<JobDetail> {
  requireCan(actor, 'read');
  const job = await findJob(db, id, 'allow');
  const [g, ahead, lastRun] = await Promise.all([loadGraph(db, job), selectAheadSlots(db, [job.id], now), selectLastRun(db, job)]);
  const aheadSlot = aheadSlotOf(ahead, job.id);
  const next = nextFireOf(job, aheadSlot);
  // a job that fires nothing now lists what it would fire once resumed or restored, from its run created ahead if any
  const first = next ?? (job.status === 'active' && !job.deletedAt ? null : computeNextRunAt(job, now));
  const nextFireTimes = nextFireTimesOf(job, first, 5, !!next && (job.status !== 'active' || !!job.deletedAt), now);
  return { ...toJobView(g.job, g.steps, g.edges, { aheadSlot, lastRun }), nextFireTimes };
}

/** getJob by key (live jobs only). */
export async function getJobByKey(db: Db, key: string, actor: Actor, now = new Date()): Promise<JobDetail> {
  requireCan(actor, 'read');
  const job = await db.job.findFirst({ where: { key, deletedAt: null } });
  if (!job) throw new DomainError('not_found', `Job ${key} not found`);
  return getJob(db, job.id, actor, now);
}
