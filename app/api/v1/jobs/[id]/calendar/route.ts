import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { JobCalendarQuery } from '@/lib/api/view-schemas';
import { getJobCalendar } from '@/lib/runs/job-calendar';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/jobs/:id/calendar?tz=&to= (any role) -> { jobId, timeZone, from, to, days: [{ date, runs, succeeded,
 * failed, active }] }: runs per calendar day in `tz` (default UTC) over the 366 days ending `to` (default today
 * in `tz`); days without runs are left out. 400 names the field (`tz`, `to`).
 */
export const GET = rest({ operation: 'jobs.calendar', params: IdParams, resource: 'job', query: JobCalendarQuery }, async ({ db, params, query, actor }) => getJobCalendar(db, params.id, query, actor));
