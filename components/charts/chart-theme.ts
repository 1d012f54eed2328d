/**
 * Shared chart vocabulary: one colour per outcome, matching components/status-badge.tsx
 * (green success, red failed, orange timeout), and the percent formatter (times and durations: lib/time/format.ts). Pure, no React.
 */
export const OUTCOME_COLORS = { success: '#10b981', failure: '#ef4444', timeout: '#f97316', deadLetter: '#991b1b' } as const;
export const LINE_COLORS = { p50: '#6366f1', p95: '#c026d3', lateness: '#d97706' } as const;

// Dates and durations on charts are written by the one time module.
export { axisMs, formatDuration as fullMs, shortDate } from '@/lib/time/format';

/**
 * Which day (or hour) labels a chart's time axis writes: every Nth, N the same across the axis, the latest always
 * (recharts' `interval`). Its default, `preserveEnd`, fits labels in from the right one by one, so their gaps varied
 * with the labels' widths (at 1920 px: Nov 8, Nov 9, Nov 10, then every other day, then every day again).
 */
export const TIME_AXIS_INTERVAL = 'equidistantPreserveEnd' as const;

/** 0.9876 -> "98.8%"; null -> "—". */
export function percent(rate: number | null | undefined): string {
  if (rate == null) return '—';
  return `${(rate * 100).toFixed(rate >= 0.999 || rate === 0 ? 0 : 1)}%`;
}

/** The title of an outcomes chart (components/charts/outcome-bars.tsx): what it counts, per what, in what unit; `of` names a handler (small multiples). */
export function outcomesTitle(per: 'day' | 'hour', of?: string): string {
  return `${of ? `${of}: outcomes` : 'Outcomes'} per ${per} (attempts)`;
}
