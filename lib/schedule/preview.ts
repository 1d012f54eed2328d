import { ScheduleError } from './errors';
import { fireTimesAfter, type ScheduleSpec, type ScheduleWindow } from './spec';
import { MAX_INSTANT_MS } from '../api/instant';
import { MAX_PREVIEW_COUNT, PREVIEW_HORIZON_YEARS } from './limits';

// defined in limits.ts so that the API schemas, which the browser also runs, need none of the fire-time walk
export { MAX_PREVIEW_COUNT };

/**
 * Next `count` (1..50) nominal fire times strictly after `from` for the
 * console/REST preview, without stagger. An interval is anchored at
 * window.startAt, else at `createdAt` (a saved job's creation, the tick's anchor), else at `from` (as if
 * the job were created now). Fewer are
 * returned when the schedule ends (once, manual, endAt, year field), passes the last instant
 * Tickflow accepts anywhere (9999-12-31T23:59:59Z, lib/api/instant.ts), or fires more than
 * PREVIEW_HORIZON_YEARS (100) after `from`: that bounds the work of one preview.
 * Throws ScheduleError('count') and the spec's own ScheduleErrors.
 */
export function previewFireTimes(spec: ScheduleSpec, from: Date, count: number, window: ScheduleWindow & { createdAt?: Date | null } = {}): Date[] {
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
    createdAt: window.createdAt ?? from,
  };
  const horizon = new Date(from.getTime());
  horizon.setUTCFullYear(horizon.getUTCFullYear() + PREVIEW_HORIZON_YEARS);
  const lastMs = Math.min(MAX_INSTANT_MS, horizon.getTime());
  for (const t of fireTimesAfter(schedule, from)) {
    if (t.getTime() > lastMs) break;
    out.push(t);
    if (out.length >= count) break;
  }
  return out;
}
