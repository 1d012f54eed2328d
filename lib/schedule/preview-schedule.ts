import { SchedulePreviewQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { DomainError } from '../errors.ts';
import { ScheduleError } from './errors.ts';
import { previewFireTimes } from './preview.ts';
import { dueInstant, staggerOffsetMs } from './stagger.ts';

// Not exported from lib/schedule/index.ts: lib/api/schemas.ts imports this folder's modules, and the browser runs it.

/** The answer of a schedule preview: what was previewed, in which zone, and the fire times (ISO-8601 UTC). */
export type SchedulePreview = ({ cron: string } | { intervalSeconds: number }) & { timezone: string; fireTimes: string[] };

/**
 * The schedule preview of GET /api/v1/schedule/preview and of the job form (its server action): the next `count`
 * (1..50, default 5) fire times strictly after `from` (default `now`) of a cron expression in zone `tz` (default
 * UTC), or of an interval anchored at `startAt`, else at `createdAt` (a saved job's creation, which the tick
 * anchors it at), else at `from` (a job not saved yet), inside the window `startAt..endAt`
 * (lib/schedule/preview.ts previewFireTimes). With `jobId` and `staggerSeconds` (a saved job's, as its edit form
 * sends them) they are due instants, slot + the job's fixed offset, the tick's rule (stagger.ts dueTimesAfter:
 * the slots due strictly after `from`); without, the slots. `rawQuery` is the query as received (strings).
 * @throws DomainError('validation') naming the field (cron, intervalSeconds, tz, from, count, startAt, endAt, jobId, staggerSeconds, createdAt)
 */
export function previewSchedule(rawQuery: unknown, now: Date): SchedulePreview {
  const query = parseOrThrow(SchedulePreviewQuery, rawQuery);
  const tz = query.tz ?? 'UTC';
  const spec = query.intervalSeconds !== undefined
    ? { kind: 'interval' as const, intervalSeconds: query.intervalSeconds }
    : { kind: 'cron' as const, cron: query.cron!, timezone: tz };
  let times: Date[];
  try {
    const offset = query.jobId ? staggerOffsetMs(query.jobId, query.staggerSeconds ?? 0) : 0;
    // due = slot + offset > from  <=>  slot > from - offset (as dueTimesAfter walks it)
    const from = new Date((query.from ?? now).getTime() - offset);
    const window = { startAt: query.startAt ?? null, endAt: query.endAt ?? null, createdAt: query.createdAt ?? null };
    // a slot due after the last instant Tickflow stores never fires (stagger.ts dueInstant): not listed
    times = [];
    for (const t of previewFireTimes(spec, from, query.count ?? 5, window)) {
      const due = dueInstant(t, offset);
      if (!due) break;
      times.push(due);
    }
  } catch (e) {
    // the schema has checked the inputs; a walk that still refuses one names it like the schema would
    if (e instanceof ScheduleError) throw new DomainError('validation', `Invalid ${e.field === 'timezone' ? 'tz' : e.field}: ${e.message}`, { [e.field === 'timezone' ? 'tz' : e.field]: e.message });
    throw e;
  }
  const schedule = spec.kind === 'cron' ? { cron: spec.cron } : { intervalSeconds: spec.intervalSeconds };
  return { ...schedule, timezone: tz, fireTimes: times.map((t) => t.toISOString()) };
}
