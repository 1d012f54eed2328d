import { ScheduleError } from './errors';

/**
 * First fire time of a fixed-rate schedule strictly after `after`: fire times
 * are `anchor + k * intervalSeconds` (k >= 0, seconds), so they never drift with
 * how long runs take or how late a tick was. If `after` is before `anchor`, the
 * anchor itself is returned. docs/design.md §4 (anchored at start_at ?? created_at).
 * Throws ScheduleError('intervalSeconds') unless a positive integer, ('from') on invalid dates.
 */
export function nextIntervalFireTime(anchor: Date, intervalSeconds: number, after: Date): Date {
  if (!Number.isInteger(intervalSeconds) || intervalSeconds < 1) {
    throw new ScheduleError('intervalSeconds', 'intervalSeconds must be a positive integer');
  }
  const a = anchor.getTime();
  const t = after.getTime();
  if (Number.isNaN(a) || Number.isNaN(t)) throw new ScheduleError('from', 'anchor and after must be valid Dates');
  if (t < a) return new Date(a);
  const periodMs = intervalSeconds * 1000;
  const k = Math.floor((t - a) / periodMs) + 1;
  return new Date(a + k * periodMs);
}
