/**
 * Shared chart vocabulary: one colour per outcome, matching components/status-badge.tsx
 * (green success, red failed, orange timeout), and small formatters. Pure, no React.
 */
export const OUTCOME_COLORS = { success: '#10b981', failure: '#ef4444', timeout: '#f97316', deadLetter: '#991b1b' } as const;
export const LINE_COLORS = { p50: '#6366f1', p95: '#c026d3', lateness: '#d97706' } as const;

/** `2026-03-07` -> `Mar 7` (dates are stats-TZ calendar days, formatted without a zone shift). */
export function shortDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

/** Compact ms for axes: 850ms, 1.2s, 3.5m, 1.1h. */
export function axisMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)}m`;
  return `${+(ms / 3_600_000).toFixed(1)}h`;
}

/** Full ms for tooltips: "850 ms", "12.3 s", "4m 05s"; "—" for null. */
export function fullMs(ms: number | null | undefined): string {
  if (ms == null || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** 0.9876 -> "98.8%"; null -> "—". */
export function percent(rate: number | null | undefined): string {
  if (rate == null) return '—';
  return `${(rate * 100).toFixed(rate >= 0.999 || rate === 0 ? 0 : 1)}%`;
}
