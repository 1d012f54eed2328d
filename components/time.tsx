'use client';

import * as React from 'react';

/** ISO-ish UTC form used in every tooltip: "2026-11-29 09:21:05 UTC". */
export function formatUtc(d: Date | string | number): string {
  const date = new Date(d);
  if (Number.isNaN(date.getTime())) return '';
  return date.toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}

/** Wall time of an instant in an IANA zone: "2026-11-29 17:21:05 GMT+8" style (24 h). */
export function formatInZoneShort(d: Date | string | number, timeZone: string): string {
  const date = new Date(d);
  try {
    const parts = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      timeZoneName: 'short',
    }).formatToParts(date);
    const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
    return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${get('timeZoneName')}`;
  } catch {
    return formatUtc(date);
  }
}

/** "3m ago" / "in 2h" for an offset in ms relative to now. */
export function relativeFrom(ms: number): string {
  const abs = Math.abs(ms);
  const s = Math.round(abs / 1000);
  let text: string;
  if (s < 5) return ms <= 0 ? 'just now' : 'now';
  if (s < 60) text = `${s}s`;
  else if (s < 3600) text = `${Math.floor(s / 60)}m`;
  else if (s < 86400) text = `${Math.floor(s / 3600)}h`;
  else text = `${Math.floor(s / 86400)}d`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** Duration in ms as "850 ms", "12.3 s", "4m 05s", "2h 03m". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

// One shared ticking clock so a page with 100 relative times re-renders once per interval.
let listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
function subscribe(cb: () => void) {
  listeners.add(cb);
  if (!timer) timer = setInterval(() => listeners.forEach((l) => l()), 10_000);
  return () => {
    listeners.delete(cb);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}
function useNow(): number | null {
  // null on the server and during hydration: avoids text mismatches between server and browser clocks.
  const [now, setNow] = React.useState<number | null>(null);
  React.useEffect(() => {
    setNow(Date.now());
    return subscribe(() => setNow(Date.now()));
  }, []);
  return now;
}

/**
 * Relative time ("5m ago", "in 2h") with the absolute UTC instant in `title`.
 * `timeZone` adds the wall time in that zone to the tooltip. Renders "—" for null.
 */
export function RelativeTime({ value, timeZone, className }: { value: Date | string | null | undefined; timeZone?: string; className?: string }) {
  const now = useNow();
  if (value == null) return <span className={className}>—</span>;
  const date = new Date(value);
  const title = timeZone && timeZone !== 'UTC' ? `${formatInZoneShort(date, timeZone)}\n${formatUtc(date)}` : formatUtc(date);
  return (
    <time dateTime={date.toISOString()} title={title} className={className}>
      {now == null ? formatUtc(date) : relativeFrom(date.getTime() - now)}
    </time>
  );
}

/** Absolute time in `timeZone` (default UTC), with UTC on hover. */
export function ZonedTime({ value, timeZone = 'UTC', className }: { value: Date | string | null | undefined; timeZone?: string; className?: string }) {
  if (value == null) return <span className={className}>—</span>;
  const date = new Date(value);
  return (
    <time dateTime={date.toISOString()} title={formatUtc(date)} className={className}>
      {timeZone === 'UTC' ? formatUtc(date) : formatInZoneShort(date, timeZone)}
    </time>
  );
}

/**
 * Time elapsed since `since` ("4.98 s"), then `suffix`, ticking every second in the
 * browser. Renders only `placeholder` on the server and during hydration: a server
 * clock read in render differs from the browser's, and React refuses that markup
 * (hydration error #418) and re-renders the whole tree on the client.
 */
export function Elapsed({ since, suffix = '', placeholder = '…' }: { since: Date | string; suffix?: string; placeholder?: string }) {
  const [now, setNow] = React.useState<number | null>(null);
  React.useEffect(() => {
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  if (now == null) return <>{placeholder}</>;
  return (
    <>
      {formatDuration(Math.max(0, now - new Date(since).getTime()))}
      {suffix}
    </>
  );
}
