/**
 * The tick (docs/design.md §1): one scheduler pass that fires due jobs and advances
 * their next_run_at.
 *
 * One transaction per batch: lockDueJobs takes up to `limit` due job rows
 * FOR UPDATE SKIP LOCKED; for each job, inside a SAVEPOINT, the plan from
 * planJobFire is applied — runs via triggerRun (trigger 'schedule',
 * scheduledFor = nominal slot), misfired slots via recordSkippedRun (reason
 * 'misfire', or one summarising record for big gaps) — and next_run_at is
 * advanced. Everything commits together, so N tickers never fire a slot twice
 * (the job row lock) and a crash mid-batch fires nothing (rollback); the unique
 * index runs_schedule_fire_uniq is the backstop.
 *
 * Look-ahead (docs/on-time.md, `lookaheadMs`): jobs due within the window are locked too; the
 * run of their next slot is created now with its tasks claimable at the slot's due instant,
 * unless the job has an active run (then its block strategy is decided at the slot, and
 * `deferredUntil` says when). Jobs whose only work is one slot (ahead, or due now) are handled
 * as one batch of a few statements (applyAheadBatch), the rest one by one. A job handled one by
 * one whose slots are due first withdraws its run created ahead of a slot that then passed by more
 * than the misfire grace unstarted (downtime: withdrawMissedAheadRun) and is planned again from
 * that slot, so its misfire policy decides it with the other missed slots (docs/on-time.md, row
 * "misfire"); such a job has an active run, so it is never in the batch.
 *
 * One bad row never stops the tick (docs/engine-cases.md case 1): a job whose schedule
 * cannot be evaluated, or that cannot be fired for a non-transient reason, is
 * rolled back to its savepoint, paused with last_error, and the batch goes on.
 * A transient error (deadlock, serialization, lock timeout) leaves the job as
 * it was, for the next tick. A slot that already has a schedule run (unique
 * violation) is treated as fired.
 */
import { Prisma, type PrismaClient } from '../../db.ts';
import { log } from '../../log.ts';
import { recordSkippedRun, triggerRun } from '../index.ts';
import { randomBytes, randomUUID } from 'node:crypto';
import { finishRunIfDone } from '../settle.ts';
import { insertRuns } from '../sql/insert-runs.ts';
import { slotKey, takenBetween, takenSlots } from '../sql/covered-slots.ts';
import { triggerRunAhead } from '../trigger-run.ts';
import { withdrawMissedAheadRun } from '../cancel-ahead-runs.ts';
import { advanceJobs, jobsWithActiveRuns } from './sql/ahead-batch.ts';
import { pgErrorCode } from '../pg.ts';
import { planJobFire, summaryReason, type TickJob, type TickPlan } from './plan-job-fire.ts';
import { advanceJob } from './sql/advance-job.ts';
import { lockDueJobs, type DueJobRow } from './sql/lock-due-jobs.ts';
import { markJobScheduleError } from './sql/mark-job-schedule-error.ts';

export interface TickOptions {
  /** due jobs locked per transaction */
  limit: number;
  /** a due slot later than this is a misfire (default 60 s) */
  misfireGraceMs?: number;
  /** skipped slots recorded one row each up to this many (default 20), then one summary */
  skippedRowLimit?: number;
  /** recorded as runs.triggered_by (default 'scheduler') */
  triggeredBy?: string;
  /**
   * look-ahead window in ms (default 0): a job whose next slot is due within it gets that run
   * now, its tasks claimable at the slot's due instant (triggerRunAhead; docs/on-time.md)
   */
  lookaheadMs?: number;
  /**
   * runs and skipped records a pass writes for the jobs it handles one by one before it leaves
   * the rest of its batch to the next pass (default DEFAULT_FIRE_BUDGET; at least one job is
   * always handled whole). A catch-up after downtime (fire_all, many jobs) is then several short
   * transactions, each holding its job rows briefly, instead of one long one that completions of
   * those jobs' runs (which lock the job row to book them) wait behind.
   */
  fireBudget?: number;
  /**
   * wait for due jobs another transaction holds instead of skipping them (lock-due-jobs.ts
   * `wait`): the catch-up before a worker's first claim after a start or an outage, so that no
   * job due then is left undecided by a tick still in flight when the claims begin
   */
  waitForLockedJobs?: boolean;
}

export interface TickResult {
  /** jobs locked in this pass (`leftOver` of them left to the next) */
  jobs: number;
  /** runs created by triggerRun (whatever the block strategy made of them) */
  fired: number;
  /** jobs whose due slot was later than the misfire grace (handled per their misfire policy) */
  misfires: number;
  /** skipped records written (individual or summary) */
  skippedRecords: number;
  /** jobs paused because their schedule ended (once fired, window over) */
  finished: number;
  /** jobs paused with last_error */
  failed: number;
  /** jobs left for the next tick after a transient error */
  deferred: number;
  /** true when the batch was full, or jobs of it were left over: call again at once */
  more: boolean;
  /** jobs locked by this pass but left, untouched and still due, to the next one (the fire budget was spent) */
  leftOver: number;
  /** runs created ahead of their slot (also counted in `fired`) */
  ahead: number;
  /**
   * the earliest due instant of a job in the window that could not be created ahead (it has an
   * active run, so its block strategy must be decided at the slot): tick again then
   */
  deferredUntil: Date | null;
  /** the jobs of `deferredUntil`: in the window, waiting for their slot */
  waitingJobIds: string[];
}

export const DEFAULT_MISFIRE_GRACE_MS = 60_000;
export const DEFAULT_SKIPPED_ROW_LIMIT = 20;
/** TickOptions.fireBudget's default: runs and skipped records written one job at a time per pass */
export const DEFAULT_FIRE_BUDGET = 50;

const TRANSIENT_CODES = new Set(['40001', '40P01', '55P03', '57014']);

/** Postgres SQLSTATE of an error thrown through Prisma (driver adapter) or pg, if any. */
export function sqlState(err: unknown): string | undefined {
  const fromEngine = pgErrorCode(err);
  if (fromEngine) return fromEngine;
  const msg = String((err as Error)?.message ?? '');
  const m = /Code: `([0-9A-Z]{5})`/.exec(msg);
  if (m) return m[1];
  if (/duplicate key value|Unique constraint failed/i.test(msg)) return '23505';
  if (/deadlock detected/i.test(msg)) return '40P01';
  return undefined;
}

function toTickJob(r: DueJobRow): TickJob {
  return {
    id: r.id,
    scheduleKind: r.schedule_kind,
    cronExpression: r.cron_expression,
    timezone: r.timezone,
    intervalSeconds: r.interval_seconds,
    runAt: r.run_at,
    startAt: r.start_at,
    endAt: r.end_at,
    misfirePolicy: r.misfire_policy,
    misfireMaxCatchup: r.misfire_max_catchup,
    staggerSeconds: r.stagger_seconds,
    nextRunAt: r.next_run_at,
    createdAt: r.created_at,
  };
}

/**
 * One tick pass over at most `limit` due jobs. `db` must be a PrismaClient (the
 * pass opens its own transaction). Returns counters; `more` says the batch was
 * full and another pass should follow at once.
 */
export async function runTick(db: PrismaClient, options: TickOptions, now: Date = new Date()): Promise<TickResult> {
  const logger = log('tick');
  const grace = options.misfireGraceMs ?? DEFAULT_MISFIRE_GRACE_MS;
  const skippedRowLimit = options.skippedRowLimit ?? DEFAULT_SKIPPED_ROW_LIMIT;
  const triggeredBy = options.triggeredBy ?? 'scheduler';
  const lookaheadMs = Math.max(0, options.lookaheadMs ?? 0);
  const result: TickResult = {
    jobs: 0, fired: 0, misfires: 0, skippedRecords: 0, finished: 0, failed: 0, deferred: 0, more: false, leftOver: 0, ahead: 0, deferredUntil: null, waitingJobIds: [],
  };
  let waiting = 0;
  let picked = 0;
  const fireBudget = Math.max(1, options.fireBudget ?? DEFAULT_FIRE_BUDGET);

  await db.$transaction(
    async (tx) => {
      const rows = await lockDueJobs(tx, { limit: options.limit, horizon: new Date(now.getTime() + lookaheadMs), wait: options.waitForLockedJobs }, now);
      result.jobs = rows.length;
      picked = rows.picked ?? rows.length;
      const planned: { row: DueJobRow; job: TickJob; plan: TickPlan }[] = [];
      for (const row of rows) {
        const job = toTickJob(row);
        try {
          planned.push({ row, job, plan: planJobFire(job, now, { misfireGraceMs: grace, skippedRowLimit, lookaheadMs }) });
        } catch (err) {
          const message = `schedule cannot be evaluated: ${(err as Error).message}`;
          logger.warn({ jobId: job.id, key: row.key, err: (err as Error).message }, 'tick: job paused, schedule cannot be evaluated');
          await markJobScheduleError(tx, { jobId: job.id, error: message }, now);
          result.failed++;
        }
      }
      // Jobs whose only work is one slot — due now or ahead of time — and that have no active
      // run (the steady state of a busy scheduler, on time or running late) are handled
      // together: a few statements for the whole batch.
      const batch = planned.filter(({ plan }) => isBatchable(plan));
      let done = new Set<string>();
      if (batch.length > 1) {
        await tx.$executeRawUnsafe('SAVEPOINT tick_ahead_batch');
        try {
          const counts = await applyAheadBatch(tx, batch.map((b) => ({ jobId: b.job.id, plan: b.plan })), triggeredBy, now);
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_ahead_batch');
          done = counts.handled;
          result.fired += counts.ahead + counts.fired;
          result.ahead += counts.ahead;
          result.finished += counts.finished;
          waiting += counts.waiting.length;
          result.waitingJobIds.push(...counts.waiting);
          if (counts.waitingUntil && (!result.deferredUntil || counts.waitingUntil < result.deferredUntil)) result.deferredUntil = counts.waitingUntil;
        } catch (err) {
          // Any refusal (a slot already fired, a transient error): each job on its own below.
          await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT tick_ahead_batch');
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_ahead_batch');
          logger.warn({ err: (err as Error).message, jobs: batch.length }, 'tick: look-ahead batch refused, one job at a time');
        }
      }
      // runs and skipped records written one job at a time so far (TickOptions.fireBudget)
      let spent = 0;
      for (const { row, job, plan: planned0 } of planned) {
        if (done.has(job.id)) continue;
        if (spent >= fireBudget) {
          // Left as it was: its row lock ends with this commit and the next pass takes it.
          result.leftOver++;
          continue;
        }

        await tx.$executeRawUnsafe('SAVEPOINT tick_job');
        let plan = planned0;
        try {
          // A run created ahead of a slot that then passed by more than the grace unstarted
          // (downtime) is a missed slot: withdrawn, and the job planned again from that slot, so
          // its misfire policy decides it with the others (docs/on-time.md, row "misfire").
          if (isDue(plan)) {
            const missed = await withdrawMissedAheadRun(tx, { jobId: job.id, actor: triggeredBy, graceMs: grace, policy: job.misfirePolicy }, now);
            // an older run (behind which later slots were fired and queued) is only withdrawn: the
            // slots after it have their runs, so the plan does not go back over them
            if (missed && missed.newest && missed.scheduleAt < job.nextRunAt) {
              plan = planJobFire({ ...job, nextRunAt: missed.scheduleAt }, now, { misfireGraceMs: grace, skippedRowLimit, lookaheadMs });
            }
            if (missed) logger.info({ jobId: job.id, key: row.key, runId: missed.id, slot: missed.scheduledFor }, 'tick: run created ahead withdrawn, its slot missed');
          }
          const counts = await applyPlan(tx, job.id, plan, triggeredBy, now);
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_job');
          spent += counts.fired + counts.skipped;
          result.fired += counts.fired;
          if (plan.misfire) result.misfires++;
          result.skippedRecords += counts.skipped;
          result.ahead += counts.ahead;
          if (counts.waitingUntil) {
            waiting++;
            result.waitingJobIds.push(job.id);
            if (!result.deferredUntil || counts.waitingUntil < result.deferredUntil) result.deferredUntil = counts.waitingUntil;
          }
          if (plan.pause) result.finished++;
          if (plan.fire.length || plan.skip.length || plan.summary) {
            logger.debug({ jobId: job.id, key: row.key, fired: plan.fire.length, misfire: plan.misfire, next: plan.nextRunAt }, 'tick: fired');
          }
        } catch (err) {
          await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT tick_job');
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_job');
          const code = sqlState(err);
          if (code === '23505') {
            // A slot of this batch already has a schedule run: someone fired it.
            // Move past now without firing again (exactly-once beats catch-up).
            logger.warn({ jobId: job.id, key: row.key }, 'tick: slot already fired, advancing without firing');
            await advanceJob(tx, { jobId: job.id, nextRunAt: plan.nextRunAt, pause: plan.pause, lastError: null }, now);
          } else if (code && TRANSIENT_CODES.has(code)) {
            logger.warn({ jobId: job.id, key: row.key, code }, 'tick: transient error, job left for the next tick');
            result.deferred++;
          } else {
            const message = `tick could not fire the job: ${(err as Error).message}`.slice(0, 2000);
            logger.error({ jobId: job.id, key: row.key, err }, 'tick: job paused after a firing error');
            await markJobScheduleError(tx, { jobId: job.id, error: message }, now);
            result.failed++;
          }
        }
      }
    },
    { timeout: 60_000, maxWait: 10_000, isolationLevel: Prisma.TransactionIsolationLevel.ReadCommitted },
  );
  // A full batch asks for another pass, unless all it held were jobs waiting for their slot
  // (the next pass would lock the same rows again). A waiting pass may hold fewer rows than it
  // picked (the tick it waited for advanced them): the jobs after those may still be due.
  result.more = (picked >= options.limit && (result.jobs < picked || waiting < result.jobs)) || result.leftOver > 0;
  return result;
}

/** The plan has due slots to fire or record (not only a slot ahead of time). */
function isDue(plan: TickPlan): boolean {
  return plan.fire.length > 0 || plan.skip.length > 0 || plan.summary !== null;
}

/** The plan fires one slot due now, or only creates the next slot ahead of time; nothing missed. */
function isBatchable(plan: TickPlan): boolean {
  if (plan.skip.length > 0 || plan.summary) return false;
  return plan.fire.length === 1 || (plan.fire.length === 0 && plan.ahead !== null && plan.nextRunAt !== null);
}

/**
 * applyPlan for many one-slot jobs at once: one statement finds the slots (due, or to create
 * ahead) a backfill run holds (left to applyPlan, which passes them), one the jobs with an active run,
 * one creates the run (with its tasks, insert-runs.ts) of every other job — its due slot, or
 * its next slot ahead of time — and one moves every job's next_run_at. A job with an active
 * run is left to the caller when its slot is due (its block strategy decides), or waits for
 * its slot when it was only ahead (as triggerRunAhead). Throws on any refusal (then nothing
 * of the batch is kept: the caller's savepoint).
 * @returns `handled`: the jobs done here (the others go through applyPlan one by one)
 */
async function applyAheadBatch(
  tx: Prisma.TransactionClient,
  items: { jobId: string; plan: TickPlan }[],
  triggeredBy: string,
  now: Date,
): Promise<{ handled: Set<string>; ahead: number; fired: number; finished: number; waiting: string[]; waitingUntil: Date | null }> {
  const due = (i: { plan: TickPlan }) => i.plan.fire.length === 1;
  const slotOf = (i: { plan: TickPlan }) => (due(i) ? i.plan.fire[0]! : i.plan.ahead);
  // A slot already taken (an operator backfilled it while the tick was behind, or with a clock
  // ahead of this one) is left to applyPlan, which passes it.
  const taken = await takenSlots(tx, items.flatMap((i) => (slotOf(i) ? [{ jobId: i.jobId, slot: slotOf(i)! }] : [])));
  items = items.filter((i) => !slotOf(i) || !taken.has(slotKey(i.jobId, slotOf(i)!)));
  const busy = await jobsWithActiveRuns(tx, items.map((i) => i.jobId));
  const go = items.filter((i) => !busy.has(i.jobId));
  const waitingItems = items.filter((i) => busy.has(i.jobId) && !due(i));
  const runs = await insertRuns(tx, go.map(({ jobId, plan }) => ({
    id: randomUUID(), jobId, trigger: 'schedule', triggeredBy,
    scheduledFor: due({ plan }) ? plan.fire[0]! : plan.ahead!, scheduleAt: due({ plan }) ? null : plan.nextRunAt,
    status: 'pending' as const, reason: null, params: {}, traceId: randomBytes(16).toString('hex'), parentRunId: null,
    gated: false, countOnJob: true,
  })), now);
  for (const run of runs) if (run.tasks === 0) await finishRunIfDone(tx, run.id, now); // a job without steps
  const waiting = waitingItems.map((i) => i.jobId);
  let waitingUntil: Date | null = null;
  const wait = (at: Date | null) => {
    if (at && (!waitingUntil || at < waitingUntil)) waitingUntil = at;
  };
  for (const i of waitingItems) wait(i.plan.nextRunAt);
  // A slot fired now leaves its job active: a next slot already in the window waits for it.
  for (const i of go) if (due(i) && i.plan.ahead) {
    waiting.push(i.jobId);
    wait(i.plan.nextRunAt);
  }
  await advanceJobs(tx, [
    ...go.map(({ jobId, plan }) => due({ plan })
      ? { jobId, nextRunAt: plan.nextRunAt, pause: plan.pause }
      : { jobId, nextRunAt: plan.aheadNextRunAt, pause: plan.aheadPause }),
    ...waitingItems.map(({ jobId, plan }) => ({ jobId, nextRunAt: plan.nextRunAt, pause: plan.pause })),
  ], now);
  return {
    handled: new Set([...go, ...waitingItems].map((i) => i.jobId)),
    ahead: go.filter((i) => !due(i)).length,
    fired: go.filter(due).length,
    finished: go.filter((i) => (due(i) ? i.plan.pause : i.plan.aheadPause)).length,
    waiting,
    waitingUntil,
  };
}

async function applyPlan(
  tx: Prisma.TransactionClient,
  jobId: string,
  plan: TickPlan,
  triggeredBy: string,
  now: Date,
): Promise<{ fired: number; skipped: number; ahead: number; waitingUntil: Date | null }> {
  let skipped = 0;
  // A slot already taken has its run or record (covered-slots.ts takenSlots): one an operator has
  // backfilled (missed, or created ahead by a clock ahead of this one), or, when the plan starts again
  // from the slot of a withdrawn run created ahead, one the schedule decided meanwhile. It is
  // neither fired again (a misfire catch-up would run it twice), nor recorded as skipped, nor
  // created ahead (docs/recovery.md "Exactly once per slot").
  const taken = await takenSlots(tx, [...plan.skip, ...plan.fire, ...(plan.ahead ? [plan.ahead] : []), ...(plan.summary?.slots ?? [])].map((slot) => ({ jobId, slot })));
  const free = (slot: Date) => !taken.has(slotKey(jobId, slot));
  let aheadTaken = false;
  if (taken.size > 0) {
    aheadTaken = plan.ahead !== null && !free(plan.ahead);
    plan = { ...plan, fire: plan.fire.filter(free), skip: plan.skip.filter(free) };
  }
  // Oldest first, so runs.created_at order matches slot order.
  if (plan.summary) {
    // the taken slots of the summarised range have their runs or records: not counted as skipped,
    // and the record is filed under the oldest skipped slot that has none (not beside a backfill run)
    const kept = await takenBetween(tx, { jobId, from: plan.summary.from, to: plan.summary.to });
    const filedUnder = plan.summary.slots.find(free) ?? plan.summary.scheduledFor;
    const summary = { ...plan.summary, scheduledFor: filedUnder, count: Math.max(0, plan.summary.count - kept.backfilled - kept.recorded) };
    if (summary.count > 0) {
      const n = kept.backfilled;
      const m = kept.recorded;
      const reason = summaryReason(summary)
        + (n > 0 ? `; ${n} backfilled slot${n === 1 ? '' : 's'} in that range kept ${n === 1 ? 'its run' : 'their runs'}` : '')
        + (m > 0 ? `; ${m} slot${m === 1 ? '' : 's'} in that range already had ${m === 1 ? 'its record' : 'their records'}` : '');
      await recordSkippedRun(tx, { jobId, scheduledFor: summary.scheduledFor, reason, triggeredBy }, now);
      skipped++;
    }
  }
  for (const slot of plan.skip) {
    await recordSkippedRun(tx, { jobId, scheduledFor: slot, reason: 'misfire', triggeredBy }, now);
    skipped++;
  }
  // Catch-up runs of one tick (fire_all) follow each other: each later slot is queued behind
  // the previous one whatever the block strategy (which rules only between ticks), so
  // discard_later does not discard them and cover_early does not cancel them.
  let previous: string | undefined;
  for (const slot of plan.fire) {
    const { run, outcome } = await triggerRun(tx, { jobId, trigger: 'schedule', triggeredBy, scheduledFor: slot, ...(previous ? { followsRun: previous } : {}) }, now);
    previous = outcome === 'skipped' ? undefined : run.id;
  }
  if (plan.ahead && plan.nextRunAt && aheadTaken) {
    // that slot has its run already: the job moves past it as if it had been created ahead
    await advanceJob(tx, { jobId, nextRunAt: plan.aheadNextRunAt, pause: plan.aheadPause, lastError: null }, now);
    return { fired: plan.fire.length, skipped, ahead: 0, waitingUntil: null };
  }
  if (plan.ahead && plan.nextRunAt) {
    // The next slot is due within the look-ahead window: create its run now, claimable at its due
    // instant. Its own savepoint: a slot that already has a run (unique violation) is simply passed.
    await tx.$executeRawUnsafe('SAVEPOINT tick_ahead');
    let created: boolean;
    try {
      created = (await triggerRunAhead(tx, { jobId, triggeredBy, scheduledFor: plan.ahead, scheduleAt: plan.nextRunAt }, now)) !== null;
      await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_ahead');
    } catch (err) {
      await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT tick_ahead');
      await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_ahead');
      if (sqlState(err) !== '23505') throw err;
      created = true;
    }
    if (created) {
      await advanceJob(tx, { jobId, nextRunAt: plan.aheadNextRunAt, pause: plan.aheadPause, lastError: null }, now);
      return { fired: plan.fire.length + 1, skipped, ahead: 1, waitingUntil: null };
    }
    // An active run: the block strategy is decided at the slot, by the tick that fires it then.
    await advanceJob(tx, { jobId, nextRunAt: plan.nextRunAt, pause: plan.pause, lastError: null }, now);
    return { fired: plan.fire.length, skipped, ahead: 0, waitingUntil: plan.nextRunAt };
  }
  await advanceJob(tx, { jobId, nextRunAt: plan.nextRunAt, pause: plan.pause, lastError: null }, now);
  return { fired: plan.fire.length, skipped, ahead: 0, waitingUntil: null };
}
