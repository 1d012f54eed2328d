import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { staggerOffsetMs } from '../schedule/index.ts';
import { withdrawAheadRunOf, withdrawMissedAheadRun } from './cancel-ahead-runs.ts';
import { finishRunIfDone } from './settle.ts';
import { triggerCause } from './trigger-run.ts';
import { coveredSlots, type CoveredSlot } from './sql/covered-slots.ts';
import { insertJobAudit } from './sql/insert-job-audit.ts';
import { insertRuns } from './sql/insert-runs.ts';
import { lockJob } from './sql/lock-job.ts';

/**
 * The earliest nominal slot a job's schedule still fires on time (docs/recovery.md "Exactly once
 * per slot"): every slot whose due instant (its nominal instant plus the job's stagger offset,
 * lib/schedule/stagger.ts) is after `now`, or null when the schedule fires nothing (a job that is
 * not active). A staggered slot whose nominal instant has passed may still be due: a backfill
 * leaves it to the tick. A slot already due and not fired (the workers are down) is the
 * backfill's to take; the tick then passes it (run-tick.ts backfilledSlots).
 * @param now UTC instant
 */
export function firstSlotNotYetDue(job: { id: string; status: string; staggerSeconds: number }, now: Date): Date | null {
  if (job.status !== 'active') return null;
  return new Date(now.getTime() + 1 - staggerOffsetMs(job.id.toLowerCase(), job.staggerSeconds));
}

/**
 * Creates the runs of a backfill (docs/recovery.md), in ONE transaction: locks
 * the job row (lock-job.ts, the order every trigger takes), drops the slots
 * that already have a schedule or backfill run holding them (coveredSlots: not a `skipped`
 * record, not a run cancelled before it started and never retried) and those the schedule still
 * fires on time (firstSlotNotYetDue: a staggered slot not due yet), then creates one
 * run per remaining slot, oldest first, with trigger `backfill`,
 * scheduled_for = the slot and triggered_by = `actor`, plus a job_audit row
 * (action backfill).
 *
 * Block strategy: backfill runs never overlap each other or an active run of
 * the job, whatever the strategy: the first starts at once when the job is
 * idle, every other one is queued with the serial_execution gate
 * (trigger-run.ts) and released one after the other by finalisation
 * (release-serial-run.ts), oldest slot first. A run created ahead of a slot still to come is
 * withdrawn first, as by triggerRun. discard_later would otherwise
 * turn a backfill into one run and N skipped records, and cover_early would
 * cancel all but the last slot: neither is what a backfill asks for.
 * Exactly once per slot: runs_backfill_slot_uniq (job_id, scheduled_for; the backfill runs holding
 * their slot).
 *
 * @param p.slots nominal slots (UTC instants), already computed by lib/schedule and capped by the caller
 * @param now UTC instant (injectable clock): created_at, schedule_at
 * @returns the runs created, oldest slot first; the slots skipped for their runs (`covered`); the
 *   first slot not due yet, left to the schedule (`notDueFrom`, null when none)
 * @throws DomainError('not_found') for a missing or deleted job.
 */
export async function backfillRuns(
  db: Db,
  p: { jobId: string; slots: Date[]; actor: string; reason?: string | null; from: Date; to: Date },
  now: Date = new Date(),
): Promise<{ runIds: string[]; covered: CoveredSlot[]; notDueFrom: Date | null }> {
  if (!UUID_RE.test(p.jobId)) throw new DomainError('not_found', `job ${p.jobId} not found`);
  return withEngineTransaction(db, async (tx) => {
    let found = await lockJob(tx, p.jobId);
    if (!found) throw new DomainError('not_found', `job ${p.jobId} not found`);
    // A run created ahead of one of these slots that never started although its slot is due (the
    // workers are away) gives the slot to the backfill, which the operator asked for: otherwise the
    // tick would withdraw it later and its misfire policy might skip the slot.
    if (await withdrawMissedAheadRun(tx, { jobId: found.id, actor: p.actor, backfill: p.slots }, now)) {
      found = (await lockJob(tx, p.jobId))!; // the active runs changed
    }
    const covered = await coveredSlots(tx, { jobId: found.id, slots: p.slots });
    const taken = new Set(covered.map((c) => new Date(c.scheduledFor).getTime()));
    const notDueFrom = firstSlotNotYetDue(found, now);
    const slots = [...new Set(p.slots.map((s) => s.getTime()))]
      .filter((t) => !taken.has(t) && (notDueFrom === null || t < notDueFrom.getTime())).sort((a, b) => a - b);
    const ids = slots.map(() => randomUUID());
    const job = slots.length ? await withdrawAheadRunOf(tx, found, { actor: p.actor, cause: triggerCause({ trigger: 'backfill', triggeredBy: p.actor }, ids[0]!) }, now) : found;
    // One statement for all the runs and their tasks (insert-runs.ts); every run but the first
    // (or every run, when the job already has an active one) waits behind the serial gate.
    const waitsFor = job.newestActive;
    const inserted = await insertRuns(tx, slots.map((t, i) => ({
      id: ids[i]!,
      jobId: job.id,
      trigger: 'backfill',
      triggeredBy: p.actor,
      scheduledFor: new Date(t),
      scheduleAt: null,
      status: 'pending' as const,
      reason: i > 0 || waitsFor ? `queued: backfill waits for the run before it${i === 0 ? ` (${waitsFor})` : ''}` : null,
      params: {},
      traceId: randomBytes(16).toString('hex'),
      parentRunId: null,
      gated: i > 0 || waitsFor !== null,
      countOnJob: true,
    })), now);
    const runIds: string[] = [];
    for (const run of inserted) {
      // a job without steps has nothing to wait for: its run is complete at once
      if (run.tasks === 0) await finishRunIfDone(tx, run.id, now);
      runIds.push(run.id);
    }
    await insertJobAudit(tx, {
      jobId: job.id, action: 'backfill', actor: p.actor, reason: p.reason ?? null,
      runId: runIds[0] ?? null,
      detail: {
        from: p.from.toISOString(), to: p.to.toISOString(), slots: p.slots.length, created: runIds.length,
        skipped: covered.length, firstSlot: slots.length ? new Date(slots[0]).toISOString() : null,
        lastSlot: slots.length ? new Date(slots[slots.length - 1]).toISOString() : null,
      },
    }, now);
    return { runIds, covered, notDueFrom };
  });
}
