import { z } from 'zod';
import type { Db } from '../db.ts';
import { listParameter } from '../api/validation.ts';
import { MIN_INSTANT_MS } from '../api/instant.ts';
import { addDays, daysBetween, isIsoDate, statDateOf, type IsoDate } from './dates.ts';
import { mergeStatsSlots, type StatsSlotRow } from './merge-slots.ts';
import { estimatePercentile, normaliseBuckets, sumBuckets } from './percentiles.ts';

/** Longest range one query may ask for (days, inclusive). */
export const MAX_STATS_RANGE_DAYS = 366;

/**
 * Calendar dates a query may name, the stats' and the job calendar's (README "Input rules"): from the
 * day of the earliest instant Tickflow accepts (lib/api/instant.ts) to 2999-12-31 (a year-9999 date is
 * a typo, not a range).
 */
export const MIN_STATS_DATE: IsoDate = new Date(MIN_INSTANT_MS).toISOString().slice(0, 10);
export const MAX_STATS_DATE = '2999-12-31';

export const DATE_MESSAGE = `Must be a date YYYY-MM-DD from ${MIN_STATS_DATE} to ${MAX_STATS_DATE}`;
/** A calendar date `YYYY-MM-DD` inside MIN_STATS_DATE..MAX_STATS_DATE (a query field). */
export const DateParam = z
  .string()
  .refine((d) => isIsoDate(d) && d >= MIN_STATS_DATE && d <= MAX_STATS_DATE, DATE_MESSAGE);

/**
 * Query of GET /api/v1/stats/daily and the stats page: `from`, `to` (calendar dates in the
 * stats time zone, inclusive), optional `handler` (one name, or several comma-separated).
 * Errors name the field: bad date -> `from`/`to`; from > to -> `to`; range > 366 days -> `from`.
 */
export const DailyStatsQuery = z
  .object({
    from: DateParam,
    to: DateParam,
    handler: listParameter(z.string().trim().max(2000)).optional(),
  })
  .superRefine((q, ctx) => {
    // Compare only two valid dates: a malformed `from` is its own error, not also `to`'s.
    if (!isIsoDate(q.from) || !isIsoDate(q.to)) return;
    if (q.from > q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
    else if (daysBetween(q.from, q.to) > MAX_STATS_RANGE_DAYS) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: `Range is limited to ${MAX_STATS_RANGE_DAYS} days` });
    }
  });
export type DailyStatsQuery = z.output<typeof DailyStatsQuery>;

/** The counters of handler_stats_daily (the rule: lib/engine/sql/stats-outcome.ts). */
export interface StatsCounters {
  /** tasks that succeeded that day */
  success: number;
  /** attempts that failed (retried or not, lease expiries included) */
  failure: number;
  /** attempts that timed out */
  timeout: number;
  /** tasks that used up their retries (ended `dead`) */
  deadLetter: number;
}

/** One (day, handler) aggregate. Durations/lateness in ms; date in the stats time zone. */
export interface DailyStatsDay extends StatsCounters {
  date: IsoDate;
  handler: string;
  /** estimated from the duration histogram (see percentiles.ts), null without finished attempts */
  p50Ms: number | null;
  p95Ms: number | null;
  /** mean lateness of first attempts (started_at - scheduled_for; backfill runs have none: stats-outcome.ts); null when none */
  avgLatenessMs: number | null;
  /** total duration / finished attempts; null when none */
  avgDurationMs: number | null;
  maxDurationMs: number;
  /** raw histogram (DURATION_BUCKET_BOUNDS_MS), for callers that aggregate further */
  durationBuckets: number[];
  totalDurationMs: number;
  totalLatenessMs: number;
  latenessCount: number;
}

type Row = StatsSlotRow;

function parseHandlers(h: string | undefined): string[] {
  return (h ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** The counters a stats day (or hour) is computed from: a handler_stats_daily row or a detail aggregate. */
export interface StatsCountersOf {
  handler: string;
  success: number;
  failure: number;
  timeout: number;
  deadLetter: number;
  maxDurationMs: number;
  durationBuckets: number[];
  totalDurationMs: number | bigint;
  totalLatenessMs: number | bigint;
  latenessCount: number;
}

/**
 * A DailyStatsDay of counters under the label `date` (a day, or an hour of the hourly view):
 * percentiles estimated from the histogram, means of the totals. One definition for the
 * daily table and the per-job / hourly series (get-stats-series.ts).
 */
export function statsDayOf(date: string, r: StatsCountersOf): DailyStatsDay {
  const buckets = normaliseBuckets(r.durationBuckets);
  const finished = buckets.reduce((a, b) => a + b, 0);
  const totalDuration = Number(r.totalDurationMs);
  const totalLateness = r.latenessCount > 0 ? Number(r.totalLatenessMs) : 0;
  return {
    date,
    handler: r.handler,
    success: r.success,
    failure: r.failure,
    timeout: r.timeout,
    deadLetter: r.deadLetter,
    p50Ms: estimatePercentile(buckets, 0.5, r.maxDurationMs),
    p95Ms: estimatePercentile(buckets, 0.95, r.maxDurationMs),
    avgLatenessMs: r.latenessCount > 0 ? Math.round(totalLateness / r.latenessCount) : null,
    avgDurationMs: finished > 0 ? Math.round(totalDuration / finished) : null,
    maxDurationMs: r.maxDurationMs,
    durationBuckets: buckets,
    totalDurationMs: totalDuration,
    totalLatenessMs: totalLateness,
    latenessCount: r.latenessCount,
  };
}

const toDay = (r: Row): DailyStatsDay => statsDayOf(r.statDate.toISOString().slice(0, 10), r);

/**
 * Daily per-handler aggregates for `from..to` (inclusive), reading ONLY handler_stats_daily
 * (primary key range scan on (stat_date, handler, slot); the slots of a day and handler are
 * summed by mergeStatsSlots): fast at any history size. Days without
 * activity have no row (charts fill gaps with zeros). Sorted by date, then handler.
 * @param q.handler one handler or a comma-separated list; omitted = all handlers.
 */
export async function getDailyStats(db: Db, q: { from: IsoDate; to: IsoDate; handler?: string }): Promise<{ days: DailyStatsDay[] }> {
  const handlers = parseHandlers(q.handler);
  const rows = await db.handlerStatsDaily.findMany({
    where: {
      statDate: { gte: new Date(`${q.from}T00:00:00Z`), lte: new Date(`${q.to}T00:00:00Z`) },
      ...(handlers.length ? { handler: { in: handlers } } : {}),
    },
    orderBy: [{ statDate: 'asc' }, { handler: 'asc' }],
  });
  return { days: mergeStatsSlots(rows).map(toDay) };
}

/** Totals of one handler over a range (same units and estimates as DailyStatsDay). */
export interface HandlerTotals {
  handler: string;
  success: number;
  failure: number;
  timeout: number;
  deadLetter: number;
  /** finished attempts = success + failure + timeout */
  attempts: number;
  /** success / attempts (0..1), null without attempts: the share of finished attempts that succeeded */
  successRate: number | null;
  p50Ms: number | null;
  p95Ms: number | null;
  avgDurationMs: number | null;
  maxDurationMs: number;
  avgLatenessMs: number | null;
}

/**
 * Folds daily rows into per-handler totals (pure; used by the stats page and REST). Histograms
 * are summed element-wise, so range percentiles are estimated from the combined histogram, not
 * averaged. Sorted by attempts, busiest first.
 */
export function handlerTotals(days: readonly DailyStatsDay[]): HandlerTotals[] {
  const by = new Map<string, DailyStatsDay[]>();
  for (const d of days) by.set(d.handler, [...(by.get(d.handler) ?? []), d]);
  const out: HandlerTotals[] = [];
  for (const [handler, list] of by) {
    const sum = (f: (d: DailyStatsDay) => number) => list.reduce((a, d) => a + f(d), 0);
    const buckets = sumBuckets(list.map((d) => d.durationBuckets));
    const finished = buckets.reduce((a, b) => a + b, 0);
    const success = sum((d) => d.success);
    const failure = sum((d) => d.failure);
    const timeout = sum((d) => d.timeout);
    const attempts = success + failure + timeout;
    const maxDurationMs = Math.max(0, ...list.map((d) => d.maxDurationMs));
    const latenessCount = sum((d) => d.latenessCount);
    out.push({
      handler,
      success,
      failure,
      timeout,
      deadLetter: sum((d) => d.deadLetter),
      attempts,
      successRate: attempts > 0 ? success / attempts : null,
      p50Ms: estimatePercentile(buckets, 0.5, maxDurationMs),
      p95Ms: estimatePercentile(buckets, 0.95, maxDurationMs),
      avgDurationMs: finished > 0 ? Math.round(sum((d) => d.totalDurationMs) / finished) : null,
      maxDurationMs,
      avgLatenessMs: latenessCount > 0 ? Math.round(sum((d) => d.totalLatenessMs) / latenessCount) : null,
    });
  }
  return out.sort((a, b) => b.attempts - a.attempts || a.handler.localeCompare(b.handler));
}

/** Handler names that have any stats row in the range (for the handler filter). */
export async function listStatsHandlers(db: Db, q: { from: IsoDate; to: IsoDate }): Promise<string[]> {
  const rows = await db.handlerStatsDaily.findMany({
    where: { statDate: { gte: new Date(`${q.from}T00:00:00Z`), lte: new Date(`${q.to}T00:00:00Z`) } },
    distinct: ['handler'],
    select: { handler: true },
    orderBy: { handler: 'asc' },
  });
  return rows.map((r) => r.handler);
}

/** The last `days` calendar days ending today in zone `tz` (the stats zone): `{ from, to }`. */
export function lastDaysRange(days: number, tz: string, now: Date = new Date()): { from: IsoDate; to: IsoDate } {
  const to = statDateOf(now, tz);
  return { from: addDays(to, -(Math.max(1, days) - 1)), to };
}
