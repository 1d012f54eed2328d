import type { Db } from '../db.ts';
import { parseOrThrow } from '../api/validation.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DEFAULT_SERIES_HOURS, StatsSeriesQuery } from '../api/view-schemas.ts';
import { wallParts, zonedLocalToUtc } from '../time/format.ts';
import { getStatsTimeZone } from './current-zone.ts';
import { dayStartSql } from './dates.ts';
import { buildChartData, getStatsChartData, type StatsChartData } from './chart-data.ts';
import { statsDayOf, type DailyStatsDay } from './get-daily-stats.ts';
import { queryDetailStats, type DetailStatsRow } from './detail-stats-sql.ts';

/** Chart data (lib/stats/chart-data.ts) with what it covers: its points are days or hours (`YYYY-MM-DDTHH:00` in the stats zone). */
export type StatsSeries = StatsChartData & { granularity: 'day' | 'hour'; jobId: string | null };

const p2 = (n: number) => String(n).padStart(2, '0');

/**
 * The wall-clock hours (`YYYY-MM-DDTHH:00` in `tz`) of the last `hours` hours ending at `now`, oldest first, and the
 * instant the oldest one starts. Pure. A fall-back hour that repeats is one point (the database buckets it the same way).
 */
export function lastHours(hours: number, tz: string, now: Date): { labels: string[]; start: Date } {
  const labels: string[] = [];
  for (let i = hours - 1; i >= 0; i--) {
    const w = wallParts(new Date(now.getTime() - i * 3_600_000), tz);
    const label = `${w.year}-${p2(w.month)}-${p2(w.day)}T${p2(w.hour)}:00`;
    if (labels[labels.length - 1] !== label) labels.push(label);
  }
  return { labels, start: zonedLocalToUtc(labels[0]!, tz) ?? new Date(now.getTime() - hours * 3_600_000) };
}

const toDay = (r: DetailStatsRow): DailyStatsDay => statsDayOf(r.bucket, r);

/**
 * Stats of one job and/or per hour (docs/console.md "Stats"). Daily stats of every job come
 * from the aggregate table handler_stats_daily (getStatsChartData); a job filter or the hourly
 * view aggregate task_logs directly with the same counting rule (lib/stats/detail-stats-sql.ts),
 * bounded by the asked time range (at most 366 days, or the last 48-168 hours) on
 * task_logs_created_idx. Days and hours are cut in the stats zone setting.
 * Raw query input is accepted and parsed here. `jobId` is a filter, as on every list (README "REST"):
 * one that names no job matches no task and answers zeros, never a 404 (a purged job's tasks and their
 * logs are kept, and are still counted by its id).
 * @throws DomainError validation (400 naming the field).
 */
export async function getStatsSeries(db: Db, rawQuery: unknown, actor: Actor, now: Date = new Date()): Promise<StatsSeries> {
  requireCan(actor, 'read');
  const q = parseOrThrow(StatsSeriesQuery, rawQuery ?? {});
  const granularity = q.granularity ?? 'day';
  const jobId = q.jobId?.toLowerCase() ?? null;
  const handlers = (q.handler ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (granularity === 'day' && !jobId) return { ...(await getStatsChartData(db, { from: q.from!, to: q.to!, handlers })), granularity, jobId };
  const timeZone = await getStatsTimeZone(db);
  if (granularity === 'day') {
    const [bounds] = await db.$queryRawUnsafe<{ start: Date; end: Date }[]>(
      `SELECT ${dayStartSql('$1::date', '$3::text')} AS start, ${dayStartSql('$2::date + 1', '$3::text')} AS "end"`,
      q.from, q.to, timeZone,
    );
    const rows = await queryDetailStats(db, { start: bounds!.start, end: bounds!.end, timeZone, granularity, jobId: jobId ?? undefined, handlers });
    return { ...buildChartData(rows.map(toDay), { from: q.from!, to: q.to!, handlers, timeZone }), granularity, jobId };
  }
  const { labels, start } = lastHours(q.hours ?? DEFAULT_SERIES_HOURS, timeZone, now);
  const rows = await queryDetailStats(db, { start, end: new Date(now.getTime() + 1), timeZone, granularity, jobId: jobId ?? undefined, handlers });
  return { ...buildChartData(rows.map(toDay), { from: labels[0]!, to: labels[labels.length - 1]!, handlers, timeZone, buckets: labels }), granularity, jobId };
}
