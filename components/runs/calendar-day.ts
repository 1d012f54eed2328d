import type { CalendarDay } from '@/lib/runs/job-calendar';

/** How a day's runs ended, for its colour in the job calendar (components/runs/job-calendar-panel.tsx). */
export type DayOutcome = 'none' | 'success' | 'mixed' | 'failed' | 'other';

/**
 * A day's colour, decided by its successes and failures (failed or timed out) only: cancelled,
 * skipped and in-progress runs neither make a day red nor keep it from green, so the legend
 * says "none failed", not "all succeeded", and the tooltip (calendarDayText) counts them.
 * none: no run; success: some succeeded, none failed; failed: some failed, none succeeded;
 * mixed: both; other: runs, but none succeeded or failed.
 */
export function dayOutcome(d: CalendarDay | undefined): DayOutcome {
  if (!d || d.runs === 0) return 'none';
  if (d.failed > 0 && d.succeeded > 0) return 'mixed';
  if (d.failed > 0) return 'failed';
  if (d.succeeded > 0) return 'success';
  return 'other';
}

/** The legend of the calendar's colours, in the order shown. */
export const DAY_OUTCOME_LEGEND: readonly [DayOutcome, string][] = [
  ['none', 'no runs'],
  ['success', 'succeeded, none failed'],
  ['mixed', 'some failed, some succeeded'],
  ['failed', 'failed, none succeeded'],
  ['other', 'none succeeded or failed (cancelled, skipped or in progress)'],
];

/**
 * A day's counts in words, every run accounted for: `3 runs, 1 succeeded, 1 failed, 1 cancelled or skipped`
 * (in progress and cancelled-or-skipped only when there are some). `label` is the day as shown.
 */
export function calendarDayText(label: string, d: CalendarDay | undefined): string {
  const runs = d?.runs ?? 0;
  const succeeded = d?.succeeded ?? 0;
  const failed = d?.failed ?? 0;
  const active = d?.active ?? 0;
  const rest = runs - succeeded - failed - active;
  return `${label}: ${runs} run${runs === 1 ? '' : 's'}, ${succeeded} succeeded, ${failed} failed` +
    (active > 0 ? `, ${active} in progress` : '') +
    (rest > 0 ? `, ${rest} cancelled or skipped` : '');
}
