import { rest } from '@/app/_lib/rest';
import { DailyStatsQuery, getDailyStats, handlerTotals } from '@/lib/stats/get-daily-stats';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/stats/daily?from=YYYY-MM-DD&to=YYYY-MM-DD&handler= (any role)
 * -> { from, to, days: [ { date, handler, success, failure, timeout, deadLetter, p50Ms, p95Ms,
 *      avgLatenessMs, avgDurationMs, maxDurationMs } ], handlers: [ totals with successRate ] }
 * Reads only handler_stats_daily; dates are days in the stats zone setting (default UTC); `handler`
 * may list several names comma-separated. 400 names the field: bad date (`from`/`to`),
 * from > to (`to`), range over 366 days (`from`).
 */
export const GET = rest({ operation: 'stats.daily', query: DailyStatsQuery }, async ({ db, query }) => {
  const { days } = await getDailyStats(db, query);
  return {
    from: query.from,
    to: query.to,
    days: days.map(({ durationBuckets: _b, totalDurationMs: _d, totalLatenessMs: _l, latenessCount: _c, ...d }) => d),
    handlers: handlerTotals(days),
  };
});
