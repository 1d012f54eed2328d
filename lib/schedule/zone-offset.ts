// UTC offsets and clock changes of IANA zones, read from Intl (ICU's tzdata).
// Nothing here assumes a clock change is one hour long or happens at a given
// time of day: Lord Howe moves 30 minutes, Havana falls back at 01:00 to 00:00,
// Apia skipped a whole day in 2011 (docs/scheduling.md "Clock changes").

const DAY_MS = 86_400_000;
/** How far either side of a wall time a clock change is looked for (covers a 24 h gap plus a 14 h offset). */
const SEARCH_MS = 2 * DAY_MS;

const offsetFormatters = new Map<string, Intl.DateTimeFormat>();

function offsetFormatter(tz: string): Intl.DateTimeFormat {
  let f = offsetFormatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormatters.set(tz, f);
  }
  return f;
}

/**
 * UTC offset of IANA zone `tz` at UTC instant `t` (ms since the epoch), in ms,
 * east positive (Asia/Shanghai: +28,800,000). Independent of the host TZ.
 * Throws RangeError for an unknown zone.
 */
export function zoneOffsetMs(tz: string, t: number): number {
  if (tz === 'UTC') return 0; // no clock changes; spares an Intl format per fire-time walk
  // "1/1/2026, GMT+10:30" ("GMT" alone for a zero offset).
  const m = /GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(offsetFormatter(tz).format(t));
  if (!m || !m[1]) return 0;
  const ms = Number(m[2]) * 3_600_000 + Number(m[3]) * 60_000 + Number(m[4] ?? 0) * 1000;
  return m[1] === '-' ? -ms : ms;
}

/** One clock change: from `at` (UTC ms, inclusive) the offset is `after` instead of `before` (ms). */
export type ZoneTransition = { at: number; before: number; after: number };

/**
 * The clock change of `tz` between UTC instants `lo` and `hi` (lo < hi), given
 * that the offsets at the two ends differ: bisection to the second (tzdata
 * changes happen on whole seconds).
 */
function bisectTransition(tz: string, lo: number, hi: number, before: number, after: number): ZoneTransition {
  lo = Math.floor(lo / 1000) * 1000;
  hi = Math.ceil(hi / 1000) * 1000;
  while (hi - lo > 1000) {
    const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
    if (zoneOffsetMs(tz, mid) === before) lo = mid;
    else hi = mid;
  }
  return { at: hi, before, after: zoneOffsetMs(tz, hi) };
}

const lastTransition = new Map<string, ZoneTransition>();
/**
 * Per zone, an interval [lo, hi] (UTC ms) of one offset, grown in pieces of
 * under SEARCH_MS * 2 whose two ends had the same offset: the same assumption
 * zoneAround makes, cached so that a walk over consecutive wall times costs
 * about one Intl call per four days instead of two per wall time.
 */
const constantSpan = new Map<string, { lo: number; hi: number; offset: number }>();

/**
 * How `tz` reads near floating wall time `wall` (the wall clock's fields taken
 * as if they were UTC, in ms): the clock change within two days of it, or its
 * constant offset. Assumes at most one change in that four-day window (true of
 * tzdata since 1970 except for a few days in 2011 in Apia, whose skipped day is
 * one change). Throws RangeError for an unknown zone.
 */
export function zoneAround(tz: string, wall: number): { transition: ZoneTransition } | { offset: number } {
  const cached = lastTransition.get(tz);
  // The one change a fresh search of this window would find (see the assumption above).
  if (cached && Math.abs(wall - cached.at) < SEARCH_MS) return { transition: cached };
  const lo = wall - SEARCH_MS;
  const hi = wall + SEARCH_MS;
  const span = constantSpan.get(tz);
  if (span && lo >= span.lo && lo <= span.hi) {
    if (hi <= span.hi) return { offset: span.offset };
    const probe = span.hi + 2 * SEARCH_MS - 1000;
    if (probe >= hi && zoneOffsetMs(tz, probe) === span.offset) {
      span.hi = probe;
      return { offset: span.offset };
    }
  }
  const before = zoneOffsetMs(tz, lo);
  const after = zoneOffsetMs(tz, hi);
  if (before === after) {
    constantSpan.set(tz, { lo, hi, offset: before });
    return { offset: before };
  }
  const transition = bisectTransition(tz, lo, hi, before, after);
  lastTransition.set(tz, transition);
  return { transition };
}

/**
 * The instants (UTC ms, ascending) at which zone `tz` shows floating wall time
 * `wall`: one normally, two in the interval a fall-back repeats, none inside a
 * spring-forward gap (`gap` then holds the instant the rules of
 * docs/scheduling.md fire it at: the wall time shifted forward by the gap's length).
 */
export function wallToInstants(tz: string, wall: number): { instants: number[]; gap: number | null } {
  const z = zoneAround(tz, wall);
  if ('offset' in z) return { instants: [wall - z.offset], gap: null };
  const { at, before, after } = z.transition;
  if (wall < at + Math.min(before, after)) return { instants: [wall - before], gap: null };
  if (wall >= at + Math.max(before, after)) return { instants: [wall - after], gap: null };
  if (after > before) return { instants: [], gap: wall - before };
  return { instants: [wall - before, wall - after], gap: null };
}
