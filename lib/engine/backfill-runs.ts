import { randomBytes } from 'node:crypto';
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { finishRunIfDone } from './settle.ts';
import { coveredSlots, type CoveredSlot } from './sql/covered-slots.ts';
import { insertJobAudit } from './sql/insert-job-audit.ts';
import { insertRun } from './sql/insert-run.ts';
import { instantiateTasks } from './sql/instantiate-tasks.ts';
import { lockJob } from './sql/lock-job.ts';

/**
 * Creates the runs of a backfill (docs/recovery.md), in ONE transaction: locks
 * the job row (lock-job.ts, the order every trigger takes), drops the slots
 * that already have a schedule or backfill run (coveredSlots), then creates one
 * run per remaining slot, oldest first, with trigger `backfill`,
 * scheduled_for = the slot and triggered_by = `actor`, plus a job_audit row
 * (action backfill).
 *
 * Block strategy: backfill runs never overlap each other or an active run of
 * the job, whatever the strategy: the first starts at once when the job is
 * idle, every other one is queued with the serial_execution gate
 * (trigger-run.ts) and released one after the other by finalisation
 * (release-serial-run.ts), oldest slot first. discard_later would otherwise
 * turn a backfill into one run and N skipped records, and cover_early would
 * cancel all but the last slot: neither is what a backfill asks for.
 * Exactly once per slot: runs_backfill_slot_uniq (job_id, scheduled_for).
 *
 * @param p.slots nominal slots (UTC instants), already computed by lib/schedule and capped by the caller
 * @param now UTC instant (injectable clock): created_at, schedule_at
 * @throws DomainError('not_found') for a missing or deleted job.
 */
export async function backfillRuns(
  db: Db,
  p: { jobId: string; slots: Date[]; actor: string; reason?: string | null; from: Date; to: Date },
  now: Date = new Date(),
): Promise<{ runIds: string[]; covered: CoveredSlot[] }> {
  if (!UUID_RE.test(p.jobId)) throw new DomainError('not_found', `job ${p.jobId} not found`);
  return withEngineTransaction(db, async (tx) => {
    const job = await lockJob(tx, p.jobId);
    if (!job) throw new DomainError('not_found', `job ${p.jobId} not found`);
    const covered = await coveredSlots(tx, { jobId: job.id, slots: p.slots });
    const taken = new Set(covered.map((c) => new Date(c.scheduledFor).getTime()));
    const slots = [...new Set(p.slots.map((s) => s.getTime()))].filter((t) => !taken.has(t)).sort((a, b) => a - b);
    let last = job.activeRuns.at(-1)?.id ?? null;
    const runIds: string[] = [];
    for (const t of slots) {
      const scheduledFor = new Date(t);
      const gated = last !== null;
      const run = (await insertRun(tx, {
        jobId: job.id,
        trigger: 'backfill',
        triggeredBy: p.actor,
        scheduledFor,
        status: 'pending',
        reason: gated ? `queued: backfill waits for run ${last}` : null,
        params: {},
        traceId: randomBytes(16).toString('hex'),
        parentRunId: null,
        countOnJob: true,
      }, now))!;
      const created = await instantiateTasks(tx, { runId: run.id, jobId: job.id, scheduledFor, payload: {}, gated }, now);
      if (created.tasks === 0) await finishRunIfDone(tx, run.id, now);
      else last = run.id;
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
    return { runIds, covered };
  });
}
