// All zone work goes through Intl (ICU tzdata), which is also what cron-parser's
// Luxon uses, so wall clocks computed here agree with cron-parser's.

import { formatterOf } from '../time/format.ts';

/** The wall-clock formatter of `tz` (lib/time/format.ts); throws RangeError for a zone Intl does not know, as Intl does. */
function wallFormatter(tz: string): Intl.DateTimeFormat {
  const f = formatterOf(tz);
  if (!f) throw new RangeError(`Invalid time zone specified: ${tz}`);
  return f;
}

/**
 * True when `tz` is an IANA zone name Intl knows ('UTC', 'Asia/Shanghai', also
 * links such as 'US/Eastern'). Offset strings ('+05:00') and '' are refused:
 * docs/design.md §3 stores an IANA name in `jobs.timezone`.
 */
export function isValidTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz.length === 0 || !/^[A-Za-z]/.test(tz)) return false;
  if (knownZones.has(tz)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    return false;
  }
  // Creating a formatter costs ~100 µs; every fire-time walk validates its zone.
  if (knownZones.size < 2000) knownZones.add(tz);
  return true;
}
const knownZones = new Set<string>();

/**
 * The name to hand PostgreSQL for zone `tz` wherever it reads one (AT TIME ZONE, the stats zone
 * setting): the zone's canonical name as Intl resolves it ('CET' → 'Europe/Brussels', 'IST' →
 * 'Asia/Calcutta', 'AET' → 'Australia/Sydney'; 'UTC' stays). PostgreSQL reads a name that is also
 * a time zone abbreviation as the abbreviation's fixed offset (PostgreSQL docs 8.5.3 "Time Zones":
 * AT TIME ZONE 'CET' is +01:00 all year, 'IST' is Israel's), while Intl reads it as a zone with its
 * summer time, or as another country's; and some names Intl accepts PostgreSQL does not know at
 * all ('AET', 'US/Pacific-New'). A canonical name holds a '/' (or is 'UTC'), so it is never an
 * abbreviation, and both read it alike.
 * @throws RangeError for a zone Intl does not know (validate first: isValidTimeZone)
 */
export function postgresTimeZone(tz: string): string {
  return wallFormatter(tz).resolvedOptions().timeZone;
}

/** Sorted IANA zone names for pickers: Intl.supportedValuesOf('timeZone') plus 'UTC' (ICU omits it). */
export function listTimeZones(): string[] {
  const zones = new Set(Intl.supportedValuesOf('timeZone'));
  zones.add('UTC');
  return [...zones].sort();
}

/** Wall-clock fields of an instant in a zone (month 1-12). Throws RangeError for an unknown zone. */
export type WallClock = { year: number; month: number; day: number; hour: number; minute: number; second: number };

/** Wall clock of `date` in IANA zone `tz`; independent of the host TZ. */
export function wallClock(date: Date, tz: string): WallClock {
  const out: Record<string, number> = {};
  for (const p of wallFormatter(tz).formatToParts(date)) {
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  }
  return {
    year: out.year!,
    month: out.month!,
    day: out.day!,
    hour: out.hour!,
    minute: out.minute!,
    second: out.second!,
  };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/**
 * 'YYYY-MM-DD HH:mm:ss ZONE' for display, e.g. '2026-03-08 03:00:00 EDT'.
 * Zones without a common abbreviation get a 'GMT+08:00' style offset rather than
 * ICU's terse 'GMT+8'. Throws RangeError on an unknown zone (validate with isValidTimeZone first).
 */
export function formatInZone(date: Date, tz: string): string {
  const w = wallClock(date, tz);
  const name = zoneName(date, tz, 'short');
  const label = /^GMT[+-]/.test(name) ? zoneName(date, tz, 'longOffset') : name;
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)} ${label}`;
}

function zoneName(date: Date, tz: string, style: 'short' | 'longOffset'): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: style }).formatToParts(date);
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? tz;
}
