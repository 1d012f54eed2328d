import type { Db } from '../db.ts';
import { getStatsTimeZone } from './current-zone.ts';
import { dateRange, type IsoDate } from './dates.ts';
import { getDailyStats, handlerTotals, lastDaysRange, type DailyStatsDay, type HandlerTotals, type StatsCounters } from './get-daily-stats.ts';
import { estimatePercentile, sumBuckets } from './percentiles.ts';

/** One chart point (a day in the stats time zone). Durations/lateness in ms; null = no data that day. */
export interface ChartDay extends StatsCounters {
  date: IsoDate;
  p50Ms: number | null;
  p95Ms: number | null;
  avgLatenessMs: number | null;
}

/**
 * Everything the stats charts draw, as plain JSON (server -> client components):
 * `daily` combines the selected handlers per day (histograms summed, so p50/p95 are estimated
 * over the combined distribution); `byHandler` has one filled series per handler (busiest
 * first, at most `maxHandlers`) for the per-handler stacked bars; `totals` feeds the table.
 * Every date of the range is present (zeros / nulls on quiet days).
 */
export interface StatsChartData {
  from: IsoDate;
  to: IsoDate;
  timeZone: string;
  /** the handler filter as given (empty = all) */
  handlers: string[];
  daily: ChartDay[];
  byHandler: { handler: string; daily: ChartDay[] }[];
  totals: HandlerTotals[];
}

function fold(date: IsoDate, rows: DailyStatsDay[]): ChartDay {
  const buckets = sumBuckets(rows.map((r) => r.durationBuckets));
  const max = Math.max(0, ...rows.map((r) => r.maxDurationMs));
  const latenessCount = rows.reduce((a, r) => a + r.latenessCount, 0);
  return {
    date,
    success: rows.reduce((a, r) => a + r.success, 0),
    failure: rows.reduce((a, r) => a + r.failure, 0),
    timeout: rows.reduce((a, r) => a + r.timeout, 0),
    deadLetter: rows.reduce((a, r) => a + r.deadLetter, 0),
    p50Ms: estimatePercentile(buckets, 0.5, max),
    p95Ms: estimatePercentile(buckets, 0.95, max),
    avgLatenessMs: latenessCount > 0 ? Math.round(rows.reduce((a, r) => a + r.totalLatenessMs, 0) / latenessCount) : null,
  };
}

/**
 * Pure: daily rows -> chart data for `from..to` (see StatsChartData). `buckets` replaces the dates of
 * `from..to` as the x axis when the rows are keyed otherwise (hours, lib/stats/get-stats-series.ts).
 */
export function buildChartData(days: DailyStatsDay[], p: { from: IsoDate; to: IsoDate; handlers?: string[]; timeZone?: string; maxHandlers?: number; buckets?: string[] }): StatsChartData {
  const dates = p.buckets ?? dateRange(p.from, p.to);
  const byDate = new Map<IsoDate, DailyStatsDay[]>();
  for (const d of days) byDate.set(d.date, [...(byDate.get(d.date) ?? []), d]);
  const totals = handlerTotals(days);
  const top = totals.slice(0, p.maxHandlers ?? 8).map((x) => x.handler);
  return {
    from: p.from,
    to: p.to,
    timeZone: p.timeZone ?? 'UTC',
    handlers: p.handlers ?? [],
    daily: dates.map((date) => fold(date, byDate.get(date) ?? [])),
    byHandler: top.map((handler) => ({ handler, daily: dates.map((date) => fold(date, (byDate.get(date) ?? []).filter((r) => r.handler === handler))) })),
    totals,
  };
}

/**
 * Chart data for the stats page, the job page and the overview: reads ONLY handler_stats_daily.
 * Give `from`/`to` (stats-TZ dates, inclusive) or `days` (the last N days ending today, default 30).
 * @param q.handlers restrict to these handlers (a job's step handlers); empty/omitted = all.
 */
export async function getStatsChartData(
  db: Db,
  q: { from?: IsoDate; to?: IsoDate; days?: number; handlers?: string[] },
  now: Date = new Date(),
): Promise<StatsChartData> {
  const timeZone = await getStatsTimeZone(db);
  const range = q.from && q.to ? { from: q.from, to: q.to } : lastDaysRange(q.days ?? 30, timeZone, now);
  const handlers = (q.handlers ?? []).filter(Boolean);
  const { days } = await getDailyStats(db, { ...range, handler: handlers.join(',') || undefined });
  return buildChartData(days, { ...range, handlers, timeZone });
}
