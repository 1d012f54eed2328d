import { rest } from '@/app/_lib/rest';
import { StatsSeriesQuery } from '@/lib/api/view-schemas';
import { getStatsSeries } from '@/lib/stats/get-stats-series';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/stats/series?granularity=day|hour&jobId=&handler=&from=&to=&hours= (any role) -> { from, to,
 * timeZone, granularity, jobId, handlers, daily: [points: date is a day or an hour `YYYY-MM-DDTHH:00`],
 * byHandler, totals }. Per day over from..to (stats-zone dates, at most 366 days) or per hour over the last
 * `hours` (default 48, at most 168); `jobId` restricts to one job. 400 names the field; 404 for an unknown job.
 */
export const GET = rest({ operation: 'stats.series', query: StatsSeriesQuery }, async ({ db, query, actor }) => getStatsSeries(db, query, actor));
