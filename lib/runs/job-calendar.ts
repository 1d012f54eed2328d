import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { JobCalendarQuery } from '../api/view-schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { findJob } from '../jobs/store.ts';
import { addDays, dayStartSql, statDateOf, type IsoDate } from '../stats/dates.ts';
import { MIN_STATS_DATE } from '../stats/get-daily-stats.ts';
import { postgresTimeZone } from '../schedule/timezone.ts';

/** Days one calendar covers: a year, leap day included. */
export const CALENDAR_DAYS = 366;

/** One day of the calendar: runs scheduled for that day (in the calendar's zone) by outcome. */
export interface CalendarDay {
  date: IsoDate;
  runs: number;
  succeeded: number;
  /** failed or timed out */
  failed: number;
  /** pending or running */
  active: number;
}

/** `days` holds only the days with runs, oldest first; every other day of `from..to` had none. */
export interface JobCalendar {
  jobId: string;
  timeZone: string;
  from: IsoDate;
  to: IsoDate;
  days: CalendarDay[];
}

/**
 * A job's runs per calendar day over the 366 days ending `to` (docs/console.md "Calendar"), from
 * 1970-01-01 at the earliest (`to` is a date as every query takes it: lib/stats/get-daily-stats.ts DateParam),
 * counted in SQL: the day of a run is `date_trunc('day', scheduled_for AT TIME ZONE tz)` (tz as
 * lib/schedule/timezone.ts postgresTimeZone names it, so that PostgreSQL cuts the days Intl does), so a
 * run scheduled 23:30 UTC belongs to the next day in Asia/Tokyo. One range scan of runs_job_idx
 * (job_id, scheduled_for) bounded by the first and last day's edges in `tz`; at most 366 rows.
 * Raw query input is accepted and parsed here.
 * @throws DomainError not_found (unknown job), validation (bad tz/to, naming the field).
 */
export async function getJobCalendar(db: Db, jobId: string, rawQuery: unknown, actor: Actor, now: Date = new Date()): Promise<JobCalendar> {
  requireCan(actor, 'read');
  const q = parseOrThrow(JobCalendarQuery, rawQuery ?? {});
  const timeZone = q.tz ?? 'UTC';
  const job = await findJob(db, jobId, 'allow');
  const to = q.to ?? statDateOf(now, timeZone);
  // no date before MIN_STATS_DATE is one a query may name: a year ending early in 1970 starts there
  const yearBefore = addDays(to, -(CALENDAR_DAYS - 1));
  const from = yearBefore < MIN_STATS_DATE ? MIN_STATS_DATE : yearBefore;
  const rows = await db.$queryRawUnsafe<{ d: string; runs: number; succeeded: number; failed: number; active: number }[]>(
    `SELECT to_char(date_trunc('day', scheduled_for AT TIME ZONE $2::text), 'YYYY-MM-DD') AS d,
            count(*)::int AS runs,
            count(*) FILTER (WHERE status = 'success')::int AS succeeded,
            count(*) FILTER (WHERE status IN ('failed', 'timeout'))::int AS failed,
            count(*) FILTER (WHERE status IN ('pending', 'running'))::int AS active
       FROM runs
      WHERE job_id = $1
        AND scheduled_for >= ${dayStartSql('$3::date', '$2::text')}
        AND scheduled_for < ${dayStartSql('$4::date + 1', '$2::text')}
      GROUP BY 1
      ORDER BY 1`,
    job.id, postgresTimeZone(timeZone), from, to,
  );
  return { jobId: job.id, timeZone, from, to, days: rows.map((r) => ({ date: r.d, runs: r.runs, succeeded: r.succeeded, failed: r.failed, active: r.active })) };
}
