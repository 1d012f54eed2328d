/**
 * What one tick does with one due job: pure arithmetic over lib/schedule, no
 * DB and no clock reads, so every misfire rule is unit-testable.
 *
 * Rules (docs/design.md §4, docs/engine-cases.md cases 1 and 2):
 * - The stored `next_run_at` is a due instant (nominal + stagger); the nominal
 *   slot is recovered by subtracting the job's fixed stagger offset.
 * - Due slots are every nominal slot from the stored one whose due instant is
 *   <= now (walking forward only; bounded by collectMissedSlots).
 * - Misfire (Quartz's rule): when the oldest due slot is later than
 *   `misfireGraceMs`, the job missed its time (downtime) and its misfire policy
 *   decides for ALL due slots: skip / fire_once (most recent) / fire_all (most
 *   recent `misfire_max_catchup`). Otherwise every due slot is simply due and fires.
 * - Skipped slots are recorded one row each up to `skippedRowLimit`; beyond
 *   that as ONE summarising record carrying the count (never a flood).
 * - Then the job moves to the first slot after now; with none left (once job
 *   fired, window over, year range exhausted) next_run_at is null and the job is
 *   paused (manual jobs just lose next_run_at).
 */
import {
  collectMissedSlots,
  dueAt,
  nextFireTime,
  planMisfire,
  staggerOffsetMs,
  type JobSchedule,
  type MisfirePolicy,
  type ScheduleSpec,
} from '../../schedule/index.ts';

export interface TickJob {
  id: string;
  scheduleKind: 'cron' | 'interval' | 'once' | 'manual';
  cronExpression: string | null;
  timezone: string;
  intervalSeconds: number | null;
  runAt: Date | null;
  startAt: Date | null;
  endAt: Date | null;
  misfirePolicy: MisfirePolicy;
  misfireMaxCatchup: number;
  staggerSeconds: number;
  nextRunAt: Date;
  createdAt: Date;
}

export interface TickPlanOptions {
  misfireGraceMs: number;
  /** skipped slots recorded one row each up to this many; more become one summary record */
  skippedRowLimit: number;
  /**
   * look-ahead window in ms (default 0: none): the next slot whose due instant lies in
   * (now, now + lookaheadMs] is returned as `ahead`, to be created before it is due (docs/on-time.md)
   */
  lookaheadMs?: number;
}

export interface SkipSummary {
  /** nominal slot the summary record is filed under (the oldest missed slot) */
  scheduledFor: Date;
  /**
   * skipped slots to file the record under, ascending: scheduledFor and the next ones of the
   * schedule (SUMMARY_FILING_SLOTS at most), then those the plan walked at the gap's end. Where the
   * record goes instead when a backfill holds the oldest (run-tick.ts applyPlan).
   */
  slots: Date[];
  count: number;
  /** false when count is an estimate (gigantic gaps are not walked slot by slot) */
  exact: boolean;
  from: Date;
  to: Date;
}

export interface TickPlan {
  /** nominal slots to fire now, ascending */
  fire: Date[];
  /** nominal slots to record as individual skipped runs (reason misfire), ascending */
  skip: Date[];
  /** one summarising skipped record instead of `skip` rows, for big gaps */
  summary: SkipSummary | null;
  misfire: boolean;
  /** next due instant, or null when the schedule has ended */
  nextRunAt: Date | null;
  /** true when the schedule has ended and the job should become paused */
  pause: boolean;
  /**
   * the next nominal slot (its due instant = nextRunAt) when it is due within the look-ahead
   * window, else null; creating it ahead moves the job to `aheadNextRunAt` / `aheadPause` instead
   */
  ahead: Date | null;
  /** next due instant after the `ahead` slot (null: the schedule ends with it) */
  aheadNextRunAt: Date | null;
  /** true when firing `ahead` ends the schedule */
  aheadPause: boolean;
}

/** Builds lib/schedule's JobSchedule from a job row. Throws ScheduleError/Error for an unusable row. */
export function toJobSchedule(job: TickJob): JobSchedule {
  let spec: ScheduleSpec;
  switch (job.scheduleKind) {
    case 'cron':
      if (!job.cronExpression) throw new Error('cron job without cron_expression');
      spec = { kind: 'cron', cron: job.cronExpression, timezone: job.timezone };
      break;
    case 'interval':
      if (!job.intervalSeconds || job.intervalSeconds < 1) throw new Error('interval job without a positive interval_seconds');
      spec = { kind: 'interval', intervalSeconds: job.intervalSeconds };
      break;
    case 'once':
      if (!job.runAt) throw new Error('once job without run_at');
      spec = { kind: 'once', runAt: job.runAt };
      break;
    case 'manual':
      spec = { kind: 'manual' };
      break;
    default:
      throw new Error(`unknown schedule kind ${String(job.scheduleKind)}`);
  }
  return { spec, startAt: job.startAt, endAt: job.endAt, staggerSeconds: job.staggerSeconds, jobId: job.id, createdAt: job.createdAt };
}

/**
 * Plans one due job. Throws when the schedule cannot be evaluated; the caller
 * marks the job (status, last_error) and carries on with the others.
 */
export function planJobFire(job: TickJob, now: Date, options: TickPlanOptions): TickPlan {
  const schedule = toJobSchedule(job);
  const offset = staggerOffsetMs(job.id, job.staggerSeconds);
  // nominal <= nowNominal  <=>  due = nominal + offset <= now
  const nowNominal = new Date(now.getTime() - offset);
  const storedNominal = new Date(job.nextRunAt.getTime() - offset);

  const lookaheadMs = Math.max(0, options.lookaheadMs ?? 0);
  // `upcoming`: the job is not due yet and this is its next slot (locked for the look-ahead):
  // it stays the next slot, never replaced by an earlier fire time of the schedule.
  const finish = (fire: Date[], skip: Date[], summary: SkipSummary | null, misfire: boolean, upcoming?: Date): TickPlan => {
    const next = upcoming ?? nextFireTime(schedule, nowNominal);
    const nextRunAt = next ? dueAt(schedule, next) : null;
    const pause = nextRunAt === null && job.scheduleKind !== 'manual';
    let ahead: Date | null = null;
    let aheadNextRunAt: Date | null = null;
    let aheadPause = false;
    if (next && nextRunAt && lookaheadMs > 0 && nextRunAt.getTime() <= now.getTime() + lookaheadMs) {
      ahead = next;
      const after = nextFireTime(schedule, next);
      aheadNextRunAt = after ? dueAt(schedule, after) : null;
      aheadPause = aheadNextRunAt === null;
    }
    return { fire, skip, summary, misfire, nextRunAt, pause, ahead, aheadNextRunAt, aheadPause };
  };

  if (job.scheduleKind === 'manual') return finish([], [], null, false);

  // The stored slot should be a real fire time; if the job was edited without
  // recomputing next_run_at, start from the first real slot at or after it.
  let first: Date | null = storedNominal;
  const check = nextFireTime(schedule, new Date(storedNominal.getTime() - 1));
  if (!check || check.getTime() !== storedNominal.getTime()) first = check;
  if (!first) return finish([], [], null, false);
  if (first.getTime() > nowNominal.getTime()) return finish([], [], null, false, first);

  const hardLimit = Math.max(1, job.misfireMaxCatchup) + Math.max(0, options.skippedRowLimit) + 1;
  const missed = collectMissedSlots(schedule, first, nowNominal, hardLimit);
  if (missed.slots.length === 0) return finish([], [], null, false);

  const oldest = missed.firstMissed ?? missed.slots[0]!;
  // a missed slot was due by now, so its due instant is nominal + offset (never past the accepted range)
  const lateness = now.getTime() - (oldest.getTime() + offset);
  const misfire = lateness > options.misfireGraceMs || missed.truncatedCount > 0;
  if (!misfire) return finish(missed.slots, [], null, false);

  const plan = planMisfire({ policy: job.misfirePolicy, maxCatchup: job.misfireMaxCatchup, missed: missed.slots });
  const skipCount = plan.skip.length + missed.truncatedCount;
  if (skipCount === 0) return finish(plan.fire, [], null, true);
  if (skipCount <= options.skippedRowLimit && missed.truncatedCount === 0) return finish(plan.fire, plan.skip, null, true);
  const to = plan.skip.length > 0 ? plan.skip[plan.skip.length - 1]! : oldest;
  return finish(
    plan.fire,
    [],
    {
      scheduledFor: oldest,
      slots: filingSlots(schedule, oldest, to, plan.skip),
      count: skipCount,
      exact: missed.truncatedExact,
      from: oldest,
      to,
    },
    true,
  );
}

/** How many slots from the oldest skipped one a summary may be filed under (SkipSummary.slots). */
const SUMMARY_FILING_SLOTS = 32;

/**
 * SkipSummary.slots: `oldest` and the schedule's next slots up to `to` (SUMMARY_FILING_SLOTS in all
 * at most), then the skipped slots the plan walked (`walked`, ascending), without repeats.
 */
function filingSlots(schedule: JobSchedule, oldest: Date, to: Date, walked: Date[]): Date[] {
  const head = [oldest];
  for (let slot = nextFireTime(schedule, oldest); slot && slot.getTime() <= to.getTime() && head.length < SUMMARY_FILING_SLOTS; slot = nextFireTime(schedule, slot)) {
    head.push(slot);
  }
  const last = head[head.length - 1]!.getTime();
  return [...head, ...walked.filter((slot) => slot.getTime() > last)];
}

/** The reason text of a summarising skipped record. */
export function summaryReason(s: SkipSummary): string {
  return `misfire: ${s.exact ? '' : 'about '}${s.count} missed slots skipped from ${s.from.toISOString()} to ${s.to.toISOString()}`;
}
