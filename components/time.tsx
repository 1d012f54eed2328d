'use client';
// Time on the console: relative times that tick, and absolute times written in the user's display zone (or a
// given zone, e.g. a job's) with the zone next to them. All text comes from lib/time/format.ts, the one
// formatting module, so the server and the browser render the same characters.
import * as React from 'react';
import { formatDateTime, formatDuration as formatDurationText, formatUtc, relativeFrom, toDate, type Instant } from '@/lib/time/format';
import { useDisplayZone } from './display-zone';

export { formatDuration, formatUtc, relativeFrom } from '@/lib/time/format';

// One shared ticking clock so a page with 100 relative times re-renders once per second, not 100 times
// (elapsed times of running work count seconds, so a coarser tick would show them frozen).
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;
function subscribe(cb: () => void) {
  listeners.add(cb);
  if (!timer) timer = setInterval(() => listeners.forEach((l) => l()), 1_000);
  return () => {
    listeners.delete(cb);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Now in ms, ticking every second; null on the server and during hydration (server and browser clocks differ). */
export function useNow(): number | null {
  const [now, setNow] = React.useState<number | null>(null);
  React.useEffect(() => {
    setNow(Date.now());
    return subscribe(() => setNow(Date.now()));
  }, []);
  return now;
}

/**
 * Tooltip text of an instant: the display zone `zone`, the `extraZone` if another, and UTC; every tooltip that names
 * an instant uses it, so none shows a raw ISO string.
 */
export function instantTitle(value: Instant, zone: string, extraZone?: string): string {
  const date = toDate(value)!;
  const lines = [formatDateTime(date, zone, { zone: true })];
  if (extraZone && extraZone !== zone) lines.push(`${formatDateTime(date, extraZone)} (${extraZone})`);
  if (zone !== 'UTC') lines.push(formatUtc(date));
  return lines.join('\n');
}

/**
 * Relative time ("5m ago", "in 2h"); before the browser has a clock, the absolute time in the display zone.
 * The tooltip has the absolute time in the display zone, in `timeZone` (e.g. the job's) and in UTC. "—" for null.
 */
export function RelativeTime({ value, timeZone, className }: { value: Instant | null | undefined; timeZone?: string; className?: string }) {
  const now = useNow();
  const zone = useDisplayZone();
  const date = toDate(value);
  if (!date) return <span className={className}>—</span>;
  return (
    <time dateTime={date.toISOString()} title={instantTitle(date, zone, timeZone)} className={className}>
      {now == null ? formatDateTime(date, zone) : relativeFrom(date.getTime() - now)}
    </time>
  );
}

/**
 * Absolute time with its zone written next to it (`2026-11-29 17:21:05 UTC+8`), in `timeZone` when given (a job's
 * zone), else in the user's display zone; other zones and UTC on hover. `ms` adds milliseconds; `seconds={false}`
 * leaves the seconds out.
 */
export function ZonedTime({ value, timeZone, className, ms, seconds }: { value: Instant | null | undefined; timeZone?: string; className?: string; ms?: boolean; seconds?: boolean }) {
  const display = useDisplayZone();
  const date = toDate(value);
  if (!date) return <span className={className}>—</span>;
  const zone = timeZone ?? display;
  return (
    <time dateTime={date.toISOString()} title={instantTitle(date, display, zone)} className={className} data-zone={zone}>
      {formatDateTime(date, zone, { ms, seconds })}
    </time>
  );
}

/**
 * Time elapsed since `since`, ticking (`4m 05s…`); `suffix` follows it (default `…`). Renders `running` until the
 * browser has a clock, so server and browser start from the same text.
 */
export function Elapsed({ since, suffix = '…', className }: { since: Instant; suffix?: string; className?: string }) {
  const now = useNow();
  const start = toDate(since);
  if (!start) return <span className={className}>—</span>;
  return <span className={className}>{now == null ? 'running' : `${formatDurationText(Math.max(0, now - start.getTime()))}${suffix}`}</span>;
}
