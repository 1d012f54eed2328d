import type { SqlClient } from '../../db.ts';

export interface CoveredSlot {
  scheduledFor: Date;
  runId: string;
  trigger: string;
  status: string;
}

/**
 * SQL true when run `r` holds its slot for a backfill (docs/recovery.md "Exactly once per slot"):
 * a run of the schedule or of a backfill that ran or may still run. A `skipped` record (a misfired
 * or discarded slot) never ran, and neither did a run cancelled before it started (`started_at`
 * NULL: withdrawn or cancelled before its slot, cancelled in a queue by an edit or a cover): a
 * backfill may run such a slot. The predicate of runs_backfill_slot_uniq is the backfill half of
 * this rule (migration 20261210000000_backfill_slot_never_started).
 */
export function holdsSlotSql(r: string): string {
  return `(${r}.trigger IN ('schedule', 'backfill') AND ${r}.status <> 'skipped' AND NOT ${cancelledBeforeStartSql(r)})`;
}

/**
 * The slots among `slots` that already have a run of the job holding them (holdsSlotSql).
 * Read-only; callers that then insert hold the job row (lock-job.ts) so no trigger of the job
 * races them. Index: runs_job_idx (job_id, scheduled_for).
 */
export async function coveredSlots(db: SqlClient, p: { jobId: string; slots: Date[] }): Promise<CoveredSlot[]> {
  if (p.slots.length === 0) return [];
  return db.$queryRawUnsafe<CoveredSlot[]>(
    `SELECT DISTINCT ON (scheduled_for) scheduled_for AS "scheduledFor", id AS "runId", trigger::text AS trigger, status::text AS status
       FROM runs r
      WHERE job_id = $1 AND scheduled_for = ANY($2::timestamptz[]) AND ${holdsSlotSql('r')}
      ORDER BY scheduled_for, created_at`,
    p.jobId, p.slots,
  );
}

/**
 * Another run of run `runId`'s job that decided its slot, when `runId` is a schedule or backfill
 * run cancelled before it started (so it holds no slot itself): re-opening or retrying it would
 * do the slot's work a second time (reopen-tasks.ts, retry-run.ts). A run decides its slot when it
 * is of the schedule or a backfill and was not cancelled before it started: unlike for a backfill
 * (holdsSlotSql), a `skipped` record counts here, since the block strategy or the misfire policy
 * decided that slot. Null otherwise, and for every other run.
 */
export async function slotTakenSince(db: SqlClient, runId: string): Promise<{ id: string; status: string } | null> {
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `SELECT o.id, o.status::text AS status FROM runs r
       JOIN runs o ON o.job_id = r.job_id AND o.scheduled_for = r.scheduled_for AND o.id <> r.id
      WHERE r.id = $1::uuid AND r.trigger IN ('schedule', 'backfill') AND ${cancelledBeforeStartSql('r')}
        AND o.trigger IN ('schedule', 'backfill') AND NOT ${cancelledBeforeStartSql('o')}
      ORDER BY o.created_at LIMIT 1`,
    runId,
  );
  return rows[0] ?? null;
}

/** SQL true when run `r` was cancelled before it started (its started_at is set by its first task's start). */
function cancelledBeforeStartSql(r: string): string {
  return `(${r}.status = 'cancelled' AND ${r}.started_at IS NULL)`;
}

/**
 * Which of the given (job, slot) pairs a backfill run holds (holdsSlotSql): the tick neither fires
 * nor records such a slot (an operator backfilled it while the tick was behind, during downtime
 * for instance: run-tick.ts), so a misfire catch-up never runs a slot a second time. One statement.
 * Index: runs_backfill_slot_uniq (job_id, scheduled_for).
 * @returns keys `${jobId}|${slot ms}` (job ids lower-case)
 */
export async function backfilledSlots(db: SqlClient, items: { jobId: string; slot: Date }[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = await db.$queryRawUnsafe<{ job_id: string; slot: Date }[]>(
    `SELECT DISTINCT r.job_id, r.scheduled_for AS slot
       FROM unnest($1::text[], $2::timestamptz[]) AS s(job_id, slot)
       JOIN runs r ON r.job_id = s.job_id AND r.scheduled_for = s.slot
      WHERE r.trigger = 'backfill' AND ${holdsSlotSql('r')}`,
    items.map((i) => i.jobId.toLowerCase()), items.map((i) => i.slot),
  );
  return new Set(rows.map((r) => slotKey(r.job_id, r.slot)));
}

/** The key of a (job, slot) pair in backfilledSlots' answer. */
export function slotKey(jobId: string, slot: Date): string {
  return `${jobId.toLowerCase()}|${new Date(slot).getTime()}`;
}
