import { createHash } from 'node:crypto';
import { MAX_INSTANT_MS } from '../api/instant';
import { fireTimesAfter, type JobSchedule } from './spec';

/**
 * Fixed per-job delay in ms, in [0, staggerSeconds * 1000): the first 4 bytes of
 * sha256(jobId) (big-endian uint32) modulo the stagger window. Stable across
 * processes and restarts, so N workers agree and a job's slot never wanders;
 * spreads jobs sharing a cron (docs/design.md §3 `stagger_seconds`). 0 when
 * staggerSeconds is 0. Throws RangeError for a negative or non-finite stagger.
 */
export function staggerOffsetMs(jobId: string, staggerSeconds: number): number {
  if (!Number.isFinite(staggerSeconds) || staggerSeconds < 0) {
    throw new RangeError('staggerSeconds must be a non-negative number');
  }
  const windowMs = Math.floor(staggerSeconds * 1000);
  if (windowMs === 0) return 0;
  return createHash('sha256').update(jobId, 'utf8').digest().readUInt32BE(0) % windowMs;
}

/**
 * The due instant of a nominal slot given its job's offset in ms (staggerOffsetMs): nominal + offset, or
 * null when that falls after 9999-12-31T23:59:59.999Z, the last instant Tickflow stores
 * (lib/api/instant.ts): such a slot never becomes due, so it never fires and is never listed. The one
 * rule for dueAt, dueTimesAfter and the schedule preview (preview-schedule.ts).
 */
export function dueInstant(nominal: Date, offsetMs: number): Date | null {
  const due = nominal.getTime() + offsetMs;
  return due > MAX_INSTANT_MS ? null : new Date(due);
}

/**
 * Instant a nominal slot becomes due: nominal + the job's fixed stagger (ms), or null past the last
 * instant Tickflow stores (dueInstant). Store the result as `jobs.next_run_at`, the nominal as
 * `runs.scheduled_for`. The due instant may fall after endAt; the slot still counts (it is nominal-in-window).
 */
export function dueAt(schedule: Pick<JobSchedule, 'jobId' | 'staggerSeconds'>, nominal: Date): Date | null {
  return dueInstant(nominal, staggerOffsetMs(schedule.jobId, schedule.staggerSeconds));
}

/**
 * Due instants (nominal + the job's fixed stagger) of the schedule's slots due strictly after `after`,
 * ascending: the tick's rule (lib/engine/tick/plan-job-fire.ts compares `nominal + offset` with now), so a
 * slot whose nominal instant has passed is still listed while its due instant is to come. Every view that
 * lists coming fires walks this (README "Window and stagger"). Ends at the last slot due by
 * 9999-12-31T23:59:59.999Z (dueInstant). Throws the spec's ScheduleErrors.
 */
export function* dueTimesAfter(schedule: JobSchedule, after: Date): Generator<Date, void, undefined> {
  const offset = staggerOffsetMs(schedule.jobId, schedule.staggerSeconds);
  for (const nominal of fireTimesAfter(schedule, new Date(after.getTime() - offset))) {
    const due = dueInstant(nominal, offset);
    if (!due) return;
    yield due;
  }
}
