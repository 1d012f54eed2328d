import { ScheduleError } from './errors';
import { fireTimesAfter, type ScheduleSpec, type ScheduleWindow } from './spec';
import { MAX_INSTANT_MS } from '../api/instant';
import { MAX_PREVIEW_COUNT } from './limits';

// defined in limits.ts so that the API schemas, which the browser also runs, need none of the fire-time walk
export { MAX_PREVIEW_COUNT };

/**
 * Next `count` (1..50) nominal fire times strictly after `from` for the
 * console/REST preview, without stagger. An interval is anchored at
 * window.startAt, else at `from` (as if the job were created now). Fewer are
 * returned when the schedule ends (once, manual, endAt, year field) or passes the last instant
 * Tickflow accepts anywhere (9999-12-31T23:59:59Z, lib/api/instant.ts).
 * Throws ScheduleError('count') and the spec's own ScheduleErrors.
 */
export function previewFireTimes(spec: ScheduleSpec, from: Date, count: number, window: ScheduleWindow = {}): Date[] {
  if (!Number.isInteger(count) || count < 1 || count > MAX_PREVIEW_COUNT) {
    throw new ScheduleError('count', `count must be an integer from 1 to ${MAX_PREVIEW_COUNT}`);
  }
  const out: Date[] = [];
  const schedule = {
    spec,
    startAt: window.startAt ?? null,
    endAt: window.endAt ?? null,
    staggerSeconds: 0,
    jobId: '',
    createdAt: from,
  };
  for (const t of fireTimesAfter(schedule, from)) {
    if (t.getTime() > MAX_INSTANT_MS) break;
    out.push(t);
    if (out.length >= count) break;
  }
  return out;
}
