import { rest } from '@/app/_lib/rest';
import { SchedulePreviewQuery } from '@/lib/api/schemas';
import { previewFireTimes } from '@/lib/schedule';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/schedule/preview?cron=&tz=&from=&count=&startAt=&endAt= (any role; computation only):
 * { fireTimes: [ISO-8601 UTC] } — next `count` (1..50, default 5) fire times strictly
 * after `from` (default now) in zone `tz` (default UTC), inside the window startAt..endAt
 * when given, and at most 100 years after `from` (PREVIEW_HORIZON_YEARS). With `intervalSeconds` instead of `cron`: every that many seconds, anchored at
 * startAt, else at `from` (a job created then; lib/schedule/preview.ts). 400 naming
 * cron/intervalSeconds/tz/from/count/startAt/endAt.
 */
export const GET = rest({ operation: 'schedule.preview', query: SchedulePreviewQuery }, async ({ query, now }) => {
  const tz = query.tz ?? 'UTC';
  const spec = query.intervalSeconds !== undefined
    ? { kind: 'interval' as const, intervalSeconds: query.intervalSeconds }
    : { kind: 'cron' as const, cron: query.cron!, timezone: tz };
  const times = previewFireTimes(spec, query.from ?? now, query.count ?? 5, { startAt: query.startAt ?? null, endAt: query.endAt ?? null });
  const schedule = spec.kind === 'cron' ? { cron: spec.cron } : { intervalSeconds: spec.intervalSeconds };
  return { ...schedule, timezone: tz, fireTimes: times.map((t) => t.toISOString()) };
});
