import { cronFireTimes, parseCron } from './cron';
import { ScheduleError } from './errors';
import { nextIntervalFireTime } from './interval';
import { MAX_INSTANT_MS } from '../api/instant';

/** What a job fires on (docs/design.md §3 `schedule_kind`). Seconds for intervals. */
export type ScheduleSpec =
  | { kind: 'cron'; cron: string; timezone: string }
  | { kind: 'interval'; intervalSeconds: number }
  | { kind: 'once'; runAt: Date }
  | { kind: 'manual' };

/** Effective window; null/undefined = unbounded. Both ends inclusive. */
export type ScheduleWindow = { startAt?: Date | null; endAt?: Date | null };

/**
 * Everything needed to compute a job's fire times. Two instants per fire:
 * - nominal: the slot itself, stored as `runs.scheduled_for` (what misfire and
 *   dedup reason about);
 * - due: nominal + staggerOffsetMs(jobId, staggerSeconds), stored as
 *   `jobs.next_run_at` (when a tick may fire it). See dueAt() in ./stagger.ts.
 */
export type JobSchedule = {
  spec: ScheduleSpec;
  startAt: Date | null;
  endAt: Date | null;
  staggerSeconds: number;
  jobId: string;
  /** Anchor for intervals when startAt is null. */
  createdAt: Date;
};

function checkDate(d: unknown, field: 'from' | 'startAt' | 'endAt' | 'runAt'): void {
  if (!(d instanceof Date) || Number.isNaN(d.getTime())) throw new ScheduleError(field, `${field} must be a valid Date`);
}

/**
 * Validates a schedule up front (for saving a job). Throws ScheduleError with
 * field 'cron' | 'timezone' | 'intervalSeconds' | 'runAt' | 'startAt' | 'endAt'.
 */
export function assertValidSchedule(schedule: Pick<JobSchedule, 'spec' | 'startAt' | 'endAt'>): void {
  const { spec, startAt, endAt } = schedule;
  if (startAt != null) checkDate(startAt, 'startAt');
  if (endAt != null) checkDate(endAt, 'endAt');
  if (startAt && endAt && endAt.getTime() < startAt.getTime()) {
    throw new ScheduleError('endAt', 'endAt must not be before startAt');
  }
  if (spec.kind === 'cron') parseCron(spec.cron, spec.timezone);
  if (spec.kind === 'interval' && (!Number.isInteger(spec.intervalSeconds) || spec.intervalSeconds < 1)) {
    throw new ScheduleError('intervalSeconds', 'intervalSeconds must be a positive integer');
  }
  if (spec.kind === 'once') checkDate(spec.runAt, 'runAt');
}

/**
 * Lazily yields nominal fire times strictly after `after`, ascending, inside
 * the window (a slot before startAt is never produced; the walk ends past
 * endAt, and past 9999-12-31T23:59:59.999Z, the last instant Tickflow stores or
 * accepts: lib/api/instant.ts). Forward only: never cron-parser prev() (upstream #378).
 * Throws ScheduleError for an invalid schedule.
 */
export function* fireTimesAfter(schedule: JobSchedule, after: Date): Generator<Date, void, undefined> {
  checkDate(after, 'from');
  const { spec, startAt, endAt } = schedule;
  // a slot after the last accepted instant could be neither stored (PostgreSQL refuses the
  // `+010000-…` ISO form) nor shown as the API writes instants: it is no slot
  const end = Math.min(endAt ? endAt.getTime() : Infinity, MAX_INSTANT_MS);
  // "first slot >= startAt" == "first slot > startAt - 1 ms" at ms precision.
  const from = startAt && after.getTime() < startAt.getTime() ? new Date(startAt.getTime() - 1) : after;
  if (from.getTime() >= end) return;
  switch (spec.kind) {
    case 'manual':
      return;
    case 'once': {
      checkDate(spec.runAt, 'runAt');
      const t = spec.runAt.getTime();
      if (t > from.getTime() && t <= end) yield new Date(t);
      return;
    }
    case 'interval': {
      // Anchored at startAt, which is a slot; without one at the job's creation, which is not: the job is created
      // with its next fire strictly after that instant (create-job.ts), so its first slot is one interval later.
      const anchor = startAt ?? schedule.createdAt;
      const walkFrom = startAt || from.getTime() >= anchor.getTime() ? from : anchor;
      let t = nextIntervalFireTime(anchor, spec.intervalSeconds, walkFrom);
      while (t.getTime() <= end) {
        yield t;
        t = new Date(t.getTime() + spec.intervalSeconds * 1000);
      }
      return;
    }
    case 'cron': {
      for (const t of cronFireTimes(parseCron(spec.cron, spec.timezone), from)) {
        if (t.getTime() > end) return;
        yield t;
      }
      return;
    }
  }
}

/**
 * Next nominal fire time strictly after `after`, or null (manual, once already
 * past, window over, year field exhausted). Cron is evaluated in its own zone;
 * intervals are anchored at startAt ?? createdAt. docs/design.md §4.
 */
export function nextFireTime(schedule: JobSchedule, after: Date): Date | null {
  const r = fireTimesAfter(schedule, after).next();
  return r.done ? null : r.value;
}

/**
 * Nominal fire times in (afterExclusive, untilInclusive], ascending, at most
 * `limit`; `truncated` is true when more exist in the range. For misfire walks.
 */
export function fireTimesBetween(
  schedule: JobSchedule,
  afterExclusive: Date,
  untilInclusive: Date,
  limit: number,
): { times: Date[]; truncated: boolean } {
  checkDate(untilInclusive, 'from');
  const until = untilInclusive.getTime();
  const times: Date[] = [];
  for (const t of fireTimesAfter(schedule, afterExclusive)) {
    if (t.getTime() > until) break;
    if (times.length >= limit) return { times, truncated: true };
    times.push(t);
  }
  return { times, truncated: false };
}
