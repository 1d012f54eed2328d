import { rest } from '@/app/_lib/rest';
import { SchedulePreviewQuery } from '@/lib/api/schemas';
import { previewSchedule } from '@/lib/schedule/preview-schedule';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/schedule/preview?cron=&tz=&from=&count=&startAt=&endAt= (any role; computation only):
 * { fireTimes: [ISO-8601 UTC] } — next `count` (1..50, default 5) fire times strictly
 * after `from` (default now) in zone `tz` (default UTC), inside the window startAt..endAt
 * when given, and at most 100 years after `from` (PREVIEW_HORIZON_YEARS). With `intervalSeconds` instead of `cron`: every that many seconds, anchored at
 * startAt, else at `from` (a job created then; lib/schedule/preview-schedule.ts). 400 naming
 * cron/intervalSeconds/tz/from/count/startAt/endAt.
 */
export const GET = rest({ operation: 'schedule.preview', queryParsedBy: SchedulePreviewQuery }, async ({ query, now }) => previewSchedule(query, now));
