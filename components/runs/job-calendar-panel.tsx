'use client';

import * as React from 'react';
import { Link } from '@/components/ui/link';
import { useQuery } from '@tanstack/react-query';
import { Tooltip as T } from 'radix-ui';
import type { CalendarDay, JobCalendar } from '@/lib/runs/job-calendar';
import { addDays, dateRange } from '@/lib/stats/dates';
import { zonedLocalToUtc } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { getJson } from '../api';
import { ErrorPanel } from '../error-panel';
import { Skeleton } from '../ui/skeleton';
import { calendarDayText, DAY_OUTCOME_LEGEND, dayOutcome, type DayOutcome } from './calendar-day';
import { ScrollX } from '../ui/scroll-x';

const FILL: Record<DayOutcome, string> = {
  none: 'bg-zinc-100',
  success: 'bg-emerald-500',
  mixed: 'bg-amber-400',
  failed: 'bg-red-500',
  other: 'bg-zinc-400',
};
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const WEEKDAYS = ['Mon', '', 'Wed', '', 'Fri', '', ''];

/** Monday-first weekday 0-6 of a calendar date. */
function weekday(date: string): number {
  return (new Date(`${date}T00:00:00Z`).getUTCDay() + 6) % 7;
}

/** `Mar 2, 2026` for a calendar date (no zone shift: the date is already a day). */
function longDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return `${MONTHS[(m ?? 1) - 1]} ${d}, ${y}`;
}

/** The runs list of one job on one day of `zone`: from the day's first instant to the last millisecond before the next day. */
export function runsOfDayHref(jobId: string, date: string, zone: string): string {
  const start = zonedLocalToUtc(`${date}T00:00`, zone);
  const next = zonedLocalToUtc(`${addDays(date, 1)}T00:00`, zone);
  const qs = new URLSearchParams({ jobId });
  if (start) qs.set('from', start.toISOString());
  if (next) qs.set('to', new Date(next.getTime() - 1).toISOString());
  return `/runs?${qs}`;
}

/**
 * A job's Calendar tab: one square per day of the last year (weeks as columns, Monday on top),
 * coloured by how that day's runs ended (like GitHub's contribution graph and Airflow's calendar
 * view). Days are calendar days of the user's display zone (the API counts them in SQL in that zone);
 * hovering a day names its runs, successes and failures; clicking it opens the runs list filtered
 * to the job and that day. Reads GET /api/v1/jobs/:id/calendar?tz=, refreshed every 60 s.
 */
export function JobCalendarPanel({ jobId }: { jobId: string }) {
  const zone = useDisplayZone();
  const q = useQuery({
    queryKey: ['job-calendar', jobId, zone],
    queryFn: ({ signal }) => getJson<JobCalendar>(`/api/v1/jobs/${encodeURIComponent(jobId)}/calendar?tz=${encodeURIComponent(zone)}`, signal),
    refetchInterval: 60_000,
  });
  if (q.isPending) return <Skeleton className="h-36 w-full" />;
  if (q.isError && !q.data) return <ErrorPanel message={q.error.message} />;
  const cal = q.data!;
  return <CalendarGrid cal={cal} jobId={jobId} />;
}

function CalendarGrid({ cal, jobId }: { cal: JobCalendar; jobId: string }) {
  const byDate = React.useMemo(() => new Map(cal.days.map((d) => [d.date, d])), [cal.days]);
  const dates = React.useMemo(() => dateRange(cal.from, cal.to), [cal.from, cal.to]);
  // weeks as columns: pad the first week so every column starts on a Monday
  const weeks: (string | null)[][] = [];
  let week: (string | null)[] = Array.from({ length: weekday(cal.from) }, () => null);
  for (const d of dates) {
    week.push(d);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length) weeks.push(week);
  const totals = cal.days.reduce((a, d) => ({ runs: a.runs + d.runs, succeeded: a.succeeded + d.succeeded, failed: a.failed + d.failed }), { runs: 0, succeeded: 0, failed: 0 });
  return (
    <div className="flex flex-col gap-3" data-testid="job-calendar" data-zone={cal.timeZone}>
      <p className="text-[12px] text-zinc-500" data-testid="calendar-summary">
        {longDate(cal.from)} – {longDate(cal.to)}, days in {cal.timeZone}: {totals.runs} run{totals.runs === 1 ? '' : 's'}, {totals.succeeded} succeeded, {totals.failed} failed
      </p>
      <ScrollX>
        <div className="inline-flex gap-[3px]">
          <div className="mr-1 flex flex-col gap-[3px] pt-4 text-[10px] leading-3 text-zinc-500">
            {WEEKDAYS.map((w, i) => (
              <span key={i} className="h-3">
                {w}
              </span>
            ))}
          </div>
          {weeks.map((wk, i) => {
            // a column is labelled with the month whose first day it holds (the first column with its own month)
            const firstOfMonth = wk.find((d) => d?.endsWith('-01')) ?? (i === 0 ? wk.find((d) => d) : null);
            const month = firstOfMonth ? MONTHS[Number(firstOfMonth.slice(5, 7)) - 1] : '';
            return (
              <div key={i} className="flex flex-col gap-[3px]">
                <span className="h-3 text-[10px] leading-3 text-zinc-500">{month}</span>
                {wk.map((d, j) =>
                  d ? <DayCell key={d} date={d} day={byDate.get(d)} href={runsOfDayHref(jobId, d, cal.timeZone)} /> : <span key={`pad-${j}`} className="size-3" />,
                )}
              </div>
            );
          })}
        </div>
      </ScrollX>
      <ul className="flex flex-wrap items-center gap-3 text-[11px] text-zinc-600" aria-label="Legend" data-testid="calendar-legend">
        {DAY_OUTCOME_LEGEND.map(([o, label]) => (
          <li key={o} className="inline-flex items-center gap-1">
            <span aria-hidden className={`size-3 rounded-[2px] ${FILL[o]}`} /> {label}
          </li>
        ))}
      </ul>
    </div>
  );
}

function DayCell({ date, day, href }: { date: string; day: CalendarDay | undefined; href: string }) {
  const outcome = dayOutcome(day);
  const text = calendarDayText(longDate(date), day);
  return (
    <T.Root>
      <T.Trigger asChild>
        <Link href={href} aria-label={text} data-testid="calendar-day" data-date={date} data-outcome={outcome} data-runs={day?.runs ?? 0} className={`block size-3 rounded-[2px] outline-offset-1 hover:outline hover:outline-zinc-500 ${FILL[outcome]}`} />
      </T.Trigger>
      <T.Portal>
        <T.Content side="top" sideOffset={6} className="z-50 rounded-md bg-zinc-900 px-2 py-1 text-xs text-white shadow-lg" data-testid="calendar-tooltip">
          {text}
          <T.Arrow className="fill-zinc-900" />
        </T.Content>
      </T.Portal>
    </T.Root>
  );
}
