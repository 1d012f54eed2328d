/**
 * Query schemas of the console's views over runs and stats (job grid, job calendar, stats series),
 * shared by REST (app/api/v1), the domain functions (lib/runs, lib/stats) and the OpenAPI document.
 * Kept free of database imports: the OpenAPI document is read by proxy.ts.
 */
import { z } from 'zod';
import { canonicalTimeZone, objectId, queryInt, str } from './schemas.ts';
import { listParameter } from './validation.ts';
import { isValidTimeZone } from '../schedule/index.ts';
import { daysBetween, isIsoDate } from '../stats/dates.ts';
import { DateParam, MAX_STATS_RANGE_DAYS } from '../stats/get-daily-stats.ts';

/** Runs one grid page shows by default, and at most. */
export const DEFAULT_GRID_RUNS = 25;
export const MAX_GRID_RUNS = 100;

/** Hours the hourly stats view covers by default, and at most. */
export const DEFAULT_SERIES_HOURS = 48;
export const MAX_SERIES_HOURS = 168;

/** GET /jobs/:id/grid?limit=&cursor=: `limit` runs (1-100, default 25) older than `cursor` (the previous page's nextCursor). */
export const JobGridQuery = z.object({
  limit: queryInt(1, MAX_GRID_RUNS).optional(),
  cursor: str().max(1000).optional(),
});

/**
 * GET /jobs/:id/calendar?tz=&to=: `tz` the zone whose calendar days count (the console sends the
 * user's display zone; default UTC), `to` the last day shown (`YYYY-MM-DD`, default today in `tz`).
 */
export const JobCalendarQuery = z.object({
  tz: str()
    .trim()
    .min(1, 'Time zone is required')
    .refine((tz) => isValidTimeZone(tz), 'Unknown time zone')
    .transform((tz) => canonicalTimeZone(tz))
    .optional(),
  // the one rule for a calendar date in a query (lib/stats/get-daily-stats.ts DateParam), as the stats take it
  to: DateParam.optional(),
});

/**
 * Query of GET /api/v1/stats/series and the stats page: `granularity` `day` (default) or `hour`;
 * `jobId` restricts to one job's tasks; `handler` one name or several comma-separated.
 * `day` needs `from` and `to` (calendar dates in the stats zone, inclusive, at most 366 days);
 * `hour` covers the last `hours` (default 48, at most 168) hours ending now and takes no from/to.
 * Errors name the field (`from`, `to`, `hours`, `jobId`, `granularity`).
 */
export const StatsSeriesQuery = z
  .object({
    granularity: z.enum(['day', 'hour'], { message: 'Must be day or hour' }).optional(),
    jobId: objectId('job').optional(),
    handler: listParameter(str().trim().max(2000)).optional(),
    from: DateParam.optional(),
    to: DateParam.optional(),
    hours: queryInt(1, MAX_SERIES_HOURS).optional(),
  })
  .superRefine((q, ctx) => {
    if ((q.granularity ?? 'day') === 'hour') {
      for (const f of ['from', 'to'] as const) if (q[f] !== undefined) ctx.addIssue({ code: 'custom', path: [f], message: `${f} applies to granularity=day; the hourly view covers the last \`hours\` hours` });
      return;
    }
    if (q.hours !== undefined) ctx.addIssue({ code: 'custom', path: ['hours'], message: 'hours applies to granularity=hour' });
    if (q.from === undefined) ctx.addIssue({ code: 'custom', path: ['from'], message: 'from is required for granularity=day' });
    if (q.to === undefined) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to is required for granularity=day' });
    if (!q.from || !q.to || !isIsoDate(q.from) || !isIsoDate(q.to)) return;
    if (q.from > q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
    else if (daysBetween(q.from, q.to) > MAX_STATS_RANGE_DAYS) ctx.addIssue({ code: 'custom', path: ['from'], message: `Range is limited to ${MAX_STATS_RANGE_DAYS} days` });
  });
export type StatsSeriesQuery = z.output<typeof StatsSeriesQuery>;

