/**
 * The tick (DESIGN.md §1): one scheduler pass that fires due jobs and advances
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
 * One bad row never stops the tick (engine.md case 1): a job whose schedule
 * cannot be evaluated, or that cannot be fired for a non-transient reason, is
 * rolled back to its savepoint, paused with last_error, and the batch goes on.
 * A transient error (deadlock, serialization, lock timeout) leaves the job as
 * it was, for the next tick. A slot that already has a schedule run (unique
 * violation) is treated as fired.
 */
import { Prisma, type PrismaClient } from '../../db.ts';
import { log } from '../../log.ts';
import { recordSkippedRun, triggerRun } from '../index.ts';
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
}

export interface TickResult {
  /** jobs locked and processed in this pass */
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
  /** true when the batch was full: call again at once */
  more: boolean;
}

export const DEFAULT_MISFIRE_GRACE_MS = 60_000;
export const DEFAULT_SKIPPED_ROW_LIMIT = 20;

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
  const result: TickResult = { jobs: 0, fired: 0, misfires: 0, skippedRecords: 0, finished: 0, failed: 0, deferred: 0, more: false };

  await db.$transaction(
    async (tx) => {
      const rows = await lockDueJobs(tx, { limit: options.limit }, now);
      result.jobs = rows.length;
      result.more = rows.length >= options.limit;
      for (const row of rows) {
        const job = toTickJob(row);
        let plan: TickPlan;
        try {
          plan = planJobFire(job, now, { misfireGraceMs: grace, skippedRowLimit });
        } catch (err) {
          const message = `schedule cannot be evaluated: ${(err as Error).message}`;
          logger.warn({ jobId: job.id, key: row.key, err: (err as Error).message }, 'tick: job paused, schedule cannot be evaluated');
          await markJobScheduleError(tx, { jobId: job.id, error: message }, now);
          result.failed++;
          continue;
        }

        await tx.$executeRawUnsafe('SAVEPOINT tick_job');
        try {
          const counts = await applyPlan(tx, job.id, plan, triggeredBy, now);
          await tx.$executeRawUnsafe('RELEASE SAVEPOINT tick_job');
          result.fired += counts.fired;
          if (plan.misfire) result.misfires++;
          result.skippedRecords += counts.skipped;
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
  return result;
}

async function applyPlan(
  tx: Prisma.TransactionClient,
  jobId: string,
  plan: TickPlan,
  triggeredBy: string,
  now: Date,
): Promise<{ fired: number; skipped: number }> {
  let skipped = 0;
  // Oldest first, so runs.created_at order matches slot order.
  if (plan.summary) {
    await recordSkippedRun(tx, { jobId, scheduledFor: plan.summary.scheduledFor, reason: summaryReason(plan.summary), triggeredBy }, now);
    skipped++;
  }
  for (const slot of plan.skip) {
    await recordSkippedRun(tx, { jobId, scheduledFor: slot, reason: 'misfire', triggeredBy }, now);
    skipped++;
  }
  for (const slot of plan.fire) {
    await triggerRun(tx, { jobId, trigger: 'schedule', triggeredBy, scheduledFor: slot }, now);
  }
  await advanceJob(tx, { jobId, nextRunAt: plan.nextRunAt, pause: plan.pause, lastError: null }, now);
  return { fired: plan.fire.length, skipped };
}
