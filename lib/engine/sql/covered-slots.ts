import type { SqlClient } from '../../db.ts';

export interface CoveredSlot {
  scheduledFor: Date;
  runId: string;
  trigger: string;
  status: string;
}

/**
 * SQL true when run `r` holds its slot for a backfill (docs/recovery.md "Exactly once per slot"):
 * a run of the schedule or of a backfill whose work went on (workWentOnSql). A `skipped` record
 * (a misfired or discarded slot) never ran, and neither did a run cancelled before it started and
 * never retried: a backfill may run such a slot. runs_backfill_slot_uniq holds the backfill half
 * of this rule but for the retries, which a unique index cannot see (migration
 * 20261210000000_backfill_slot_never_started); the callers decide under the job row lock.
 */
export function holdsSlotSql(r: string): string {
  return `(${r}.trigger IN ('schedule', 'backfill') AND ${r}.status <> 'skipped' AND ${workWentOnSql(r)})`;
}

/**
 * SQL true when the work of run `r` went on: it was not cancelled before it started (its
 * started_at, set by its first task's start, is empty: withdrawn or cancelled before its slot,
 * cancelled in a queue by an edit, a cover or an operator), or it was, and a run of its retry
 * chain (retry-run.ts: parent_run_id, any depth) was not discarded and not itself cancelled before
 * it started: the retry does the slot's work. A run whose task a worker had claimed and held when
 * an operator or an edit cancelled it has a start (the handler may have begun): it counts as
 * started. Index: runs_parent_idx for the retries.
 */
function workWentOnSql(r: string): string {
  return `(NOT ${cancelledBeforeStartSql(r)}
           OR EXISTS (WITH RECURSIVE chain AS (
                        SELECT rr.id, rr.status, rr.started_at FROM runs rr WHERE rr.parent_run_id = ${r}.id
                        UNION ALL
                        SELECT c.id, c.status, c.started_at FROM runs c JOIN chain ON c.parent_run_id = chain.id)
                      SELECT 1 FROM chain WHERE chain.status <> 'skipped' AND NOT ${cancelledBeforeStartSql('chain')}))`;
}

/** SQL true when run `r` was cancelled before it started. */
function cancelledBeforeStartSql(r: string): string {
  return `(${r}.status = 'cancelled' AND ${r}.started_at IS NULL)`;
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
 * Another run of run `runId`'s job that took its slot, when `runId` is a schedule or backfill run
 * whose work did not go on (cancelled before it started, never retried: it holds no slot itself):
 * re-opening or retrying it would do the slot's work a second time (reopen-tasks.ts, retry-run.ts).
 * The other run took the slot when it is of the schedule or a backfill and its work went on
 * (workWentOnSql), or when it is a `skipped` record and `runId` is a schedule run: the block
 * strategy or the misfire policy decided the slot (a backfill overrides such a record, so it does
 * not count against a backfill run). Null otherwise, and for every other run.
 */
export async function slotTakenSince(db: SqlClient, runId: string): Promise<{ id: string; status: string } | null> {
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `SELECT o.id, o.status::text AS status FROM runs r
       JOIN runs o ON o.job_id = r.job_id AND o.scheduled_for = r.scheduled_for AND o.id <> r.id
      WHERE r.id = $1::uuid AND r.trigger IN ('schedule', 'backfill') AND NOT ${workWentOnSql('r')}
        AND o.trigger IN ('schedule', 'backfill') AND ${workWentOnSql('o')}
        AND (o.status <> 'skipped' OR r.trigger = 'schedule')
      ORDER BY o.created_at LIMIT 1`,
    runId,
  );
  return rows[0] ?? null;
}

/**
 * The run that run `runId` was retried as (retry-run.ts; a retry the block strategy discarded does
 * not count), or null: one retry per run. With `slotRunsOnly`, only for a run of a slot's retry
 * chain (the run, or the first run it was retried from, is of the schedule or a backfill): such a
 * run, retried as a new run, is not re-opened either (the slot's work would be done twice:
 * reopen-tasks.ts); an operator may still re-open a manual or API run after retrying it.
 * Index: runs_parent_idx; runs primary key (id) up the chain.
 */
export async function retryOfRun(db: SqlClient, runId: string, opts: { slotRunsOnly?: boolean } = {}): Promise<{ id: string; status: string } | null> {
  const rows = await db.$queryRawUnsafe<{ id: string; status: string }[]>(
    `SELECT c.id, c.status::text AS status FROM runs c
      WHERE c.parent_run_id = $1::uuid AND c.status <> 'skipped'
        AND (NOT $2::boolean OR EXISTS (
              WITH RECURSIVE up AS (
                SELECT r.id, r.parent_run_id, r.trigger FROM runs r WHERE r.id = $1::uuid
                UNION ALL
                SELECT p.id, p.parent_run_id, p.trigger FROM runs p JOIN up ON p.id = up.parent_run_id)
              SELECT 1 FROM up WHERE up.parent_run_id IS NULL AND up.trigger IN ('schedule', 'backfill')))
      ORDER BY c.created_at LIMIT 1`,
    runId, opts.slotRunsOnly ?? false,
  );
  return rows[0] ?? null;
}

/**
 * SQL true when run `r` takes its slot from the tick (run-tick.ts): a backfill run holding it
 * (holdsSlotSql), or the schedule's own record of it — a run or a `skipped` record of trigger
 * `schedule` that is not cancelled, the rows of runs_schedule_fire_uniq.
 */
function takesSlotFromTickSql(r: string): string {
  return `((${r}.trigger = 'backfill' AND ${holdsSlotSql(r)}) OR (${r}.trigger = 'schedule' AND ${r}.status <> 'cancelled'))`;
}

/**
 * How many of the job's slots in [from, to] are taken already (takesSlotFromTickSql), split by
 * what took them: `backfilled` (a backfill run holds the slot) and `recorded` (only the schedule's
 * own record). A misfire summary of that range counts neither (run-tick.ts).
 * Index: runs_job_idx (job_id, scheduled_for).
 */
export async function takenBetween(db: SqlClient, p: { jobId: string; from: Date; to: Date }): Promise<{ backfilled: number; recorded: number }> {
  const rows = await db.$queryRawUnsafe<{ backfilled: number; recorded: number }[]>(
    `SELECT count(*) FILTER (WHERE s.backfilled)::int AS backfilled, count(*) FILTER (WHERE NOT s.backfilled)::int AS recorded
       FROM (SELECT r.scheduled_for, bool_or(r.trigger = 'backfill') AS backfilled FROM runs r
              WHERE r.job_id = $1 AND r.scheduled_for BETWEEN $2::timestamptz AND $3::timestamptz AND ${takesSlotFromTickSql('r')}
              GROUP BY r.scheduled_for) s`,
    p.jobId.toLowerCase(), p.from, p.to,
  );
  return rows[0] ?? { backfilled: 0, recorded: 0 };
}

/**
 * Which of the given (job, slot) pairs are taken already (takesSlotFromTickSql): the tick neither
 * fires, nor records, nor creates ahead such a slot, so that every slot keeps exactly one record
 * (docs/recovery.md "Exactly once per slot"). A slot is taken
 * - by a backfill run, when an operator backfilled it while the tick was behind (during downtime
 *   for instance), so a misfire catch-up never runs a slot a second time;
 * - by the schedule's own record, when the tick plans a job again from the slot of a run created
 *   ahead that it withdrew (its slot missed: run-tick.ts) and the slots after it were decided
 *   meanwhile (recorded as blocked behind that run, under discard_later): those keep their records.
 * One statement. Index: runs_job_idx (job_id, scheduled_for).
 * @returns keys `${jobId}|${slot ms}` (job ids lower-case)
 */
export async function takenSlots(db: SqlClient, items: { jobId: string; slot: Date }[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const rows = await db.$queryRawUnsafe<{ job_id: string; slot: Date }[]>(
    `SELECT DISTINCT r.job_id, r.scheduled_for AS slot
       FROM unnest($1::text[], $2::timestamptz[]) AS s(job_id, slot)
       JOIN runs r ON r.job_id = s.job_id AND r.scheduled_for = s.slot
      WHERE ${takesSlotFromTickSql('r')}`,
    items.map((i) => i.jobId.toLowerCase()), items.map((i) => i.slot),
  );
  return new Set(rows.map((r) => slotKey(r.job_id, r.slot)));
}

/** The key of a (job, slot) pair in takenSlots' answer. */
export function slotKey(jobId: string, slot: Date): string {
  return `${jobId.toLowerCase()}|${new Date(slot).getTime()}`;
}
