/**
 * Backfill of a job's past slots (docs/recovery.md), for REST and the console:
 * role check, input check, slots computed by lib/schedule (the same rules the
 * tick fires by), a preview, and the engine's backfillRuns.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { BACKFILL_MAX_SLOTS, BackfillInput } from '../api/recovery-schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { backfillRuns, coveredSlots, findMissedAheadRun, firstSlotNotYetDue } from '../engine/index.ts';
import { fireTimesBetween } from '../schedule/index.ts';
import { jobScheduleOf } from './job-view.ts';
import { findJob } from './store.ts';

export type BackfillSlot = {
  /** nominal slot, ISO UTC */
  scheduledFor: string;
  /**
   * 'create': a backfill run will be created; 'skip': the slot already has a run (runId, runStatus,
   * trigger), or the schedule still fires it on time (`scheduled`: a staggered slot not due yet)
   */
  action: 'create' | 'skip';
  runId?: string;
  runStatus?: string;
  trigger?: string;
  scheduled?: true;
};
export type BackfillPreview = { from: string; to: string; slots: BackfillSlot[]; create: number; skip: number; maxSlots: number };
export type BackfillResult = BackfillPreview & { runIds: string[] };

async function plan(db: Db, jobId: string, raw: unknown, actor: Actor, now: Date) {
  requireCan(actor, 'runs.write');
  const input = parseOrThrow(BackfillInput, raw ?? {});
  if (input.to.getTime() > now.getTime()) throw new DomainError('validation', 'A backfill covers past slots only', { to: 'Must not be in the future' });
  if (input.from.getTime() > input.to.getTime()) throw new DomainError('validation', 'from is after to', { from: 'Must not be after to' });
  const job = await findJob(db, jobId);
  if (job.scheduleKind === 'manual') {
    throw new DomainError('validation', `job ${job.key} is manual: it has no slots to backfill`, { from: 'This job has no schedule (manual)' });
  }
  const { times, truncated } = fireTimesBetween(jobScheduleOf(job), new Date(input.from.getTime() - 1), input.to, BACKFILL_MAX_SLOTS);
  if (truncated) {
    throw new DomainError('validation', `The range holds more than ${BACKFILL_MAX_SLOTS} slots; narrow it`, { to: `At most ${BACKFILL_MAX_SLOTS} slots per backfill` });
  }
  return { input, job, times };
}

function toPreview(from: Date, to: Date, times: Date[], covered: { scheduledFor: Date; runId: string; status: string; trigger: string }[], notDueFrom: Date | null): BackfillPreview {
  const byTime = new Map(covered.map((c) => [new Date(c.scheduledFor).getTime(), c]));
  const slots: BackfillSlot[] = times.map((t) => {
    const c = byTime.get(t.getTime());
    if (c) return { scheduledFor: t.toISOString(), action: 'skip', runId: c.runId, runStatus: c.status, trigger: c.trigger };
    if (notDueFrom && t.getTime() >= notDueFrom.getTime()) return { scheduledFor: t.toISOString(), action: 'skip', scheduled: true };
    return { scheduledFor: t.toISOString(), action: 'create' };
  });
  const create = slots.filter((s) => s.action === 'create').length;
  return { from: from.toISOString(), to: to.toISOString(), slots, create, skip: slots.length - create, maxSlots: BACKFILL_MAX_SLOTS };
}

/**
 * Lists the slots a backfill of `{ from, to, reason? }` (ISO instants,
 * inclusive, not in the future) would create, and those it skips because they
 * already have a run or the schedule still fires them (firstSlotNotYetDue). Writes nothing. Operator role.
 * @throws DomainError validation (field named: from, to, reason), not_found, forbidden.
 */
export async function previewBackfill(db: Db, jobId: string, raw: unknown, actor: Actor, now = new Date()): Promise<BackfillPreview> {
  const { input, job, times } = await plan(db, jobId, raw, actor, now);
  // a run created ahead of one of these slots that never started though its slot is due gives the
  // slot to the backfill (backfill-runs.ts): not a skip
  const stale = await findMissedAheadRun(db, { jobId: job.id, graceMs: 0 }, now);
  const covered = (await coveredSlots(db, { jobId: job.id, slots: times })).filter((c) => c.runId !== stale?.id);
  return toPreview(input.from, input.to, times, covered, firstSlotNotYetDue(job, now));
}

/**
 * Creates the backfill runs (trigger `backfill`, one per free slot, queued one
 * after the other) and the job_audit row, in one transaction. The answer lists
 * every slot as the preview does, as decided under the job lock.
 * @throws DomainError validation (field named), not_found, forbidden.
 */
export async function backfillJob(db: Db, jobId: string, raw: unknown, actor: Actor, now = new Date()): Promise<BackfillResult> {
  const { input, job, times } = await plan(db, jobId, raw, actor, now);
  const r = await backfillRuns(db, { jobId: job.id, slots: times, actor: actor.name, reason: input.reason, from: input.from, to: input.to }, now);
  return { ...toPreview(input.from, input.to, times, r.covered, r.notDueFrom), runIds: r.runIds };
}
