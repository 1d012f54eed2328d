// The one time-formatting module of the console, the REST answers and the stats pages. Server and browser render
// through it, so the same instant and zone give the same text on both (no hydration mismatch): every piece comes
// from Intl's numeric parts (year, month, day, hour, minute, second), never from zone names or locale words,
// which differ between the ICU builds of Node and of a browser (e.g. "EST" vs "GMT-5" for EST5EDT).
// Zones are IANA names; an unknown zone falls back to UTC instead of throwing in the middle of a render.

/** An instant as the console receives it: a Date, an ISO string or epoch milliseconds. */
export type Instant = Date | string | number;

/** The wall-clock fields of an instant in a zone (month 1-12, hour 0-23). */
export type WallParts = { year: number; month: number; day: number; hour: number; minute: number; second: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * The numeric wall-clock formatter of a zone (cached; en-US, h23, numeric year..second), or null for a
 * zone this runtime does not know. Shared with lib/schedule/timezone.ts, so fire times and the console
 * read wall clocks the same way.
 */
export function formatterOf(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      return null;
    }
    formatters.set(zone, f);
  }
  return f;
}

/** True for a zone name this runtime accepts (IANA names, `UTC`). */
export function isKnownZone(zone: string): boolean {
  return formatterOf(zone) !== null;
}

/** `v` as a Date, or null for null/undefined/an unparseable value. */
export function toDate(v: Instant | null | undefined): Date | null {
  if (v == null) return null;
  const d = v instanceof Date ? v : new Date(v);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** Wall-clock fields of `date` in `zone` (UTC for an unknown zone). */
export function wallParts(date: Date, zone: string): WallParts {
  const f = formatterOf(zone);
  if (!f) return wallParts(date, 'UTC');
  const parts = f.formatToParts(date);
  const n = (t: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return { year: n('year'), month: n('month'), day: n('day'), hour: n('hour') % 24, minute: n('minute'), second: n('second') };
}

/** UTC offset of `zone` at `date` in minutes, positive east of Greenwich (Asia/Shanghai: 480; New York in winter: -300). */
export function zoneOffsetMinutes(date: Date, zone: string): number {
  return Math.round(zoneOffsetMs(date, zone) / 60_000);
}

/** The zone's exact offset from UTC at `date`, in ms: whole seconds, not always whole minutes (Africa/Monrovia until 1972: −0:44:30). */
function zoneOffsetMs(date: Date, zone: string): number {
  const w = wallParts(date, zone);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - (date.getTime() - date.getUTCMilliseconds());
}

/**
 * The instants in [fromMs, toMs] (epoch ms) at which `zone`'s wall clock reads a whole multiple of `everyHours`
 * hours (00:00, 03:00, … for 3), ascending, each with that wall hour (0-23): marks of the zone's own clock, so they
 * fall on :00 local in a zone offset by :30 or :45 too (Asia/Kolkata, Asia/Kathmandu). Around a clock change
 * each wall mark comes once: a mark the change repeats, at its first occurrence (as zonedLocalToUtc reads a
 * repeated time); a mark inside a spring-forward gap, which the clock never shows, not at all. An unknown zone
 * is read as UTC. Used by the time axis of the overview's Next 24 hours (components/overview/next-fires.tsx).
 */
export function wallHourMarks(fromMs: number, toMs: number, zone: string, everyHours: number): { at: number; hour: number }[] {
  const step = everyHours * 3_600_000;
  const offsetAt = (t: number) => zoneOffsetMinutes(new Date(t), zone) * 60_000;
  const wallOf = (t: number) => t + offsetAt(t);
  // A fall-back sets the wall clock back inside the range: look one step beyond either end.
  const out: { at: number; hour: number }[] = [];
  for (let wall = Math.ceil((wallOf(fromMs) - step) / step) * step; wall <= wallOf(toMs) + step; wall += step) {
    // the zone's offsets a day either side and at the wall time itself: around a change, one candidate per side
    const candidates = [...new Set([-86_400_000, 0, 86_400_000].map((dt) => wall - offsetAt(wall + dt)))].sort((a, b) => a - b);
    const at = candidates.find((t) => wallOf(t) === wall);
    if (at === undefined || at < fromMs || at > toMs || out.some((m) => m.at === at)) continue;
    out.push({ at, hour: Math.round((((wall / 3_600_000) % 24) + 24) % 24) });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The zone as written next to a time: `UTC`, `UTC+8`, `UTC−5`, `UTC+5:30` (the offset in force at `date`). */
export function zoneLabel(date: Date, zone: string): string {
  const off = zoneOffsetMinutes(date, zone);
  if (off === 0) return 'UTC';
  const a = Math.abs(off);
  const m = a % 60;
  return `UTC${off > 0 ? '+' : '\u2212'}${Math.floor(a / 60)}${m ? `:${String(m).padStart(2, '0')}` : ''}`;
}

const p2 = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` of `v` in `zone`; '' for no instant. */
export function formatDate(v: Instant | null | undefined, zone: string): string {
  const d = toDate(v);
  if (!d) return '';
  const w = wallParts(d, zone);
  return `${w.year}-${p2(w.month)}-${p2(w.day)}`;
}

/** `HH:mm:ss` (`.SSS` with `ms`, ` UTC+8` with `zone`) of `v` in `zone`; '' for no instant. */
export function formatClock(v: Instant | null | undefined, zone: string, opts: { ms?: boolean; zone?: boolean } = {}): string {
  const d = toDate(v);
  if (!d) return '';
  const w = wallParts(d, zone);
  return `${p2(w.hour)}:${p2(w.minute)}:${p2(w.second)}${opts.ms ? `.${String(d.getUTCMilliseconds()).padStart(3, '0')}` : ''}${opts.zone ? ` ${zoneLabel(d, zone)}` : ''}`;
}

/**
 * `2026-11-29 17:21:05 UTC+8`: date, 24-hour time and the zone's offset label of `v` in `zone`. Options: `seconds`
 * (default true), `ms` (milliseconds), `zone` (default true: write the label). '' for no instant.
 */
export function formatDateTime(v: Instant | null | undefined, zone: string, opts: { seconds?: boolean; ms?: boolean; zone?: boolean } = {}): string {
  const d = toDate(v);
  if (!d) return '';
  const w = wallParts(d, zone);
  let text = `${w.year}-${p2(w.month)}-${p2(w.day)} ${p2(w.hour)}:${p2(w.minute)}`;
  if (opts.seconds !== false) text += `:${p2(w.second)}`;
  if (opts.ms) text += `.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
  if (opts.zone !== false) text += ` ${zoneLabel(d, zone)}`;
  return text;
}

/**
 * `text` with every ISO UTC instant it quotes (`2026-12-05T14:08:45.000Z`) written by {@link formatDateTime} in
 * `zone`. Reasons and errors are stored once for every reader (a run's misfire reason, a run cancelled before its
 * slot, a refused drain), so they quote instants in ISO UTC; the console writes them as it writes every other time.
 */
export function zonedInstantsInText(text: string, zone: string): string {
  return text.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z\b/g, (iso) => (Number.isNaN(Date.parse(iso)) ? iso : formatDateTime(iso, zone)));
}

/** ISO-like UTC form used in tooltips: `2026-11-29 09:21:05 UTC`. */
export function formatUtc(v: Instant | null | undefined): string {
  return formatDateTime(v, 'UTC');
}

/** formatUtc with the milliseconds when the instant has any (`2026-11-29 09:21:05.250 UTC`): an instant typed or loaded exactly. */
export function formatUtcExact(v: Instant | null | undefined): string {
  const d = toDate(v);
  return formatDateTime(d, 'UTC', { ms: !!d && d.getUTCMilliseconds() !== 0 });
}

/**
 * `3m ago` / `in 2h` / `in 12d` / `in 5y` for an offset in ms relative to now (negative = past).
 * Years are 365 days, whole ones: the exact instant is in the tooltip (components/time.tsx).
 */
export function relativeFrom(ms: number): string {
  const abs = Math.abs(ms);
  const s = Math.round(abs / 1000);
  let text: string;
  if (s < 5) return ms <= 0 ? 'just now' : 'now';
  if (s < 60) text = `${s}s`;
  else if (s < 3600) text = `${Math.floor(s / 60)}m`;
  else if (s < 86400) text = `${Math.floor(s / 3600)}h`;
  else if (s < 365 * 86400) text = `${Math.floor(s / 86400)}d`;
  else text = `${Math.floor(s / (365 * 86400))}y`;
  return ms < 0 ? `${text} ago` : `in ${text}`;
}

/** Duration in ms as `850 ms`, `1.25 s`, `12.3 s`, `4m 05s`, `2h 03m`; `—` for null. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** Compact duration for chart axes: `850ms`, `1.2s`, `3.5m`, `1.1h`. */
export function axisMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)}m`;
  return `${+(ms / 3_600_000).toFixed(1)}h`;
}

/** A time unit a duration axis is written in: its tick suffix, its name for a chart title, its length. */
export type DurationAxisUnit = { suffix: 'ms' | 's' | 'm' | 'h'; name: 'milliseconds' | 'seconds' | 'minutes' | 'hours'; ms: number };

const AXIS_UNITS: DurationAxisUnit[] = [
  { suffix: 'h', name: 'hours', ms: 3_600_000 },
  { suffix: 'm', name: 'minutes', ms: 60_000 },
  { suffix: 's', name: 'seconds', ms: 1_000 },
  { suffix: 'ms', name: 'milliseconds', ms: 1 },
];

/**
 * The one unit every tick of a duration axis is written in (niceDurationTicks' ticks), so the chart's title can
 * name it: the largest unit the top tick reaches in which the step is a whole hundredth (ticks 0, 20 s, 40 s,
 * 60 s, 80 s stay in seconds rather than 0.33 m steps).
 */
export function durationAxisUnit(ticks: readonly number[]): DurationAxisUnit {
  const top = Math.max(0, ...ticks);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : top;
  return AXIS_UNITS.find((u) => top >= u.ms && Number.isInteger(Math.round((step / u.ms) * 1e6) / 1e4)) ?? AXIS_UNITS[AXIS_UNITS.length - 1]!;
}

/** A duration axis tick in `unit` (durationAxisUnit): `0s`, `0.25s`, `80s`. */
export function axisIn(ms: number, unit: DurationAxisUnit): string {
  return `${+(ms / unit.ms).toFixed(2)}${unit.suffix}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A calendar date `2026-03-07` as `Mar 7`, and a wall-clock hour `2026-03-07T13:00` (the hourly stats points) as
 * `Mar 7 13:00` (no zone shift: the value is already a day or an hour of a zone).
 */
export function shortDate(date: string): string {
  const [day, time] = date.split('T');
  const [, m, d] = (day ?? '').split('-').map(Number);
  return `${MONTHS[(m ?? 1) - 1] ?? '?'} ${d}${time ? ` ${time.slice(0, 5)}` : ''}`;
}

/** Which of the two instants of a wall time repeated by a fall-back (the first, in the earlier offset, or the last). */
export type RepeatedOccurrence = 'first' | 'last';

/**
 * UTC instant of a wall time in an IANA zone. `local` is `YYYY-MM-DDTHH:mm[:ss[.SSS]]` (a datetime-local value).
 * Candidates from the zone's offsets on both sides of a DST change; a time repeated by a fall-back is its
 * first occurrence, or with `opts.repeated` 'last' its second (the end of a typed range: a range that ends
 * at a repeated wall time covers both of its occurrences); a time inside a spring-forward gap comes out
 * shifted forward by the gap (as cron does, README "Time zones and DST"). Null for a malformed value
 * or an unknown zone.
 */
export function zonedLocalToUtc(local: string, zone: string, opts: { repeated?: RepeatedOccurrence } = {}): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(local);
  if (!m || !isKnownZone(zone)) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as number[];
  const ms = Number((m[7] ?? '').padEnd(3, '0'));
  const asUtc = Date.UTC(y!, mo! - 1, d!, h!, mi!, s ?? 0, ms);
  // The zone's offsets a day before and a day after (no zone changes twice within two days), and
  // at the instant itself: around a change, one candidate per side of it.
  const candidates = [...new Set([-86_400_000, 0, 86_400_000].map((dt) => asUtc - zoneOffsetMs(new Date(asUtc + dt), zone)))].sort((x, y2) => x - y2);
  const wallIs = (t: number) => utcToZonedLocal(t, zone) === local.slice(0, 16) && wallParts(new Date(t), zone).second === (s ?? 0);
  // a repeated wall time: its first occurrence, the earliest candidate that has it (or the latest)
  const found = opts.repeated === 'last' ? candidates.findLast(wallIs) : candidates.find(wallIs);
  if (found !== undefined) return new Date(found);
  // In a gap no instant has this wall time: the later candidate is the wall time shifted forward by the gap.
  return new Date(candidates[candidates.length - 1]!);
}

/**
 * UTC instant of one end of a range typed as wall times in `zone` (zonedLocalToUtc): the start reads a
 * wall time a fall-back repeats as its first occurrence, the end as its second, so that a range typed
 * across the repeated hour holds both of its occurrences. Null as zonedLocalToUtc.
 */
export function zonedRangeEndToUtc(local: string, zone: string, end: 'from' | 'to'): Date | null {
  return zonedLocalToUtc(local, zone, { repeated: end === 'to' ? 'last' : 'first' });
}

/**
 * Both UTC instants of a wall time that a fall-back repeats in `zone` (`local` as zonedLocalToUtc reads
 * it), earlier first; null for a wall time that comes once (or never: a spring-forward gap), a malformed
 * value or an unknown zone. What a console input offers a choice for (components/ui/wall-time-choice.tsx).
 */
export function repeatedWallTime(local: string, zone: string): [Date, Date] | null {
  const first = zonedLocalToUtc(local, zone, { repeated: 'first' });
  const last = zonedLocalToUtc(local, zone, { repeated: 'last' });
  return first && last && first.getTime() !== last.getTime() ? [first, last] : null;
}

/**
 * The instant a wall time that a spring-forward skips in `zone` is read as (zonedLocalToUtc: shifted forward by
 * the gap, 02:30 -> 03:30); null for a wall time that exists, a malformed value or an unknown zone.
 */
export function skippedWallTime(local: string, zone: string): Date | null {
  const at = zonedLocalToUtc(local, zone);
  return at && utcToZonedLocal(at, zone) !== local.slice(0, 16) ? at : null;
}

/**
 * An instant as the value of an input that edits it as a wall time in `zone` (the inverse of
 * zonedLocalToUtc, exact): `local` is `YYYY-MM-DDTHH:mm`, with `:ss` or `:ss.SSS` when the instant has
 * them (an edit that leaves the field alone saves the instant it loaded), and `repeated` says which
 * occurrence of a wall time a fall-back repeats the instant is ('first' for any other). Null for no instant.
 */
export function instantToWallTime(value: Instant | null | undefined, zone: string): { local: string; repeated: RepeatedOccurrence } | null {
  const d = toDate(value);
  if (!d) return null;
  const ms = d.getUTCMilliseconds();
  const s = wallParts(d, zone).second; // the wall's: an offset is not always whole minutes
  const local = `${utcToZonedLocal(d, zone)}${s || ms ? `:${p2(s)}${ms ? `.${String(ms).padStart(3, '0')}` : ''}` : ''}`;
  const both = repeatedWallTime(local, zone);
  return { local, repeated: both && both[1].getTime() === d.getTime() ? 'last' : 'first' };
}

/** datetime-local value (`YYYY-MM-DDTHH:mm`) of an instant in a zone; '' for no instant. */
export function utcToZonedLocal(value: Instant | null | undefined, zone: string): string {
  const d = toDate(value);
  if (!d) return '';
  const w = wallParts(d, zone);
  return `${w.year}-${p2(w.month)}-${p2(w.day)}T${p2(w.hour)}:${p2(w.minute)}`;
}

// Steps a duration axis may use: round numbers of ms, seconds, minutes, hours and days.
const NICE_STEPS_MS = [
  1, 2, 5, 10, 20, 50, 100, 200, 250, 500,
  1_000, 2_000, 5_000, 10_000, 15_000, 30_000,
  60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000,
  3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
];

/**
 * Tick values (ms) for a duration axis from 0 to at least `maxMs`: multiples of the smallest round step (1, 2, 5
 * ×10ⁿ ms; 1, 2, 5, 10, 15, 30 s; 1, 2, 5, 10, 15, 30 min; 1, 2, 3, 6, 12, 24 h) that needs at most `count`
 * intervals. 0 or less gives [0, 1000] (an empty chart still gets a readable axis).
 */
export function niceDurationTicks(maxMs: number, count = 4): number[] {
  if (!(maxMs > 0)) return [0, 1000];
  const step = NICE_STEPS_MS.find((s) => Math.ceil(maxMs / s) <= count) ?? Math.ceil(maxMs / count / 86_400_000) * 86_400_000;
  const n = Math.max(1, Math.ceil(maxMs / step));
  return Array.from({ length: n + 1 }, (_, i) => i * step);
}
