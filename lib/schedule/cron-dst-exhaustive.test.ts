// Every clock change of every IANA zone from 2000 to 2040, checked against an
// oracle that knows nothing of cron-parser or of lib/schedule: it finds the
// changes itself from Intl offsets and applies the rules of docs/scheduling.md
// ("Clock changes") to the wall times it enumerates itself. Runs under each host
// TZ of the unit stage.
import { describe, expect, it } from 'vitest';
import { nextCronFireTimes, parseCron, cronFireTimes, type ParsedCron } from './cron';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** Offset east of UTC in ms, from Intl's long offset name ("GMT+10:30"). */
function offsetOf(tz: string, t: number): number {
  let f = offsetFormats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', { timeZone: tz, timeZoneName: 'longOffset' });
    offsetFormats.set(tz, f);
  }
  const text = f.format(t); // "01/01/2000, GMT+10:30"
  const name = text.slice(text.lastIndexOf(' ') + 1);
  if (name === 'GMT') return 0;
  const m = /^GMT([+-])(\d+):(\d+)(?::(\d+))?$/.exec(name);
  if (!m) throw new Error(`unexpected offset name ${name}`);
  const v = ((Number(m[2]) * 60 + Number(m[3])) * 60 + Number(m[4] ?? 0)) * 1000;
  return m[1] === '-' ? -v : v;
}

type Change = { at: number; before: number; after: number };

/** The zone's changes in [from, to): weekly samples (no zone changes twice within a week), then bisection to the second. */
function changesOf(tz: string, from: number, to: number): Change[] {
  const out: Change[] = [];
  const WEEK = 7 * DAY;
  let prevT = from;
  let prev = offsetOf(tz, from);
  for (let t = from + WEEK; t < to + WEEK; t += WEEK) {
    const o = offsetOf(tz, t);
    if (o !== prev) {
      let lo = prevT;
      let hi = t;
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (offsetOf(tz, mid) === prev) lo = mid;
        else hi = mid;
      }
      if (hi >= from && hi < to) out.push({ at: hi, before: prev, after: o });
    }
    prev = o;
    prevT = t;
  }
  return out;
}

/** A segment of constant offset: [start, end). */
type Segment = { start: number; end: number; offset: number };

function segmentsAround(changes: Change[], i: number): Segment[] {
  // The change i and its neighbours, so that wall times a couple of days either side resolve.
  const segs: Segment[] = [];
  const lo = Math.max(0, i - 1);
  const hi = Math.min(changes.length - 1, i + 1);
  segs.push({ start: -Infinity, end: changes[lo]!.at, offset: changes[lo]!.before });
  for (let k = lo; k <= hi; k++) {
    segs.push({ start: changes[k]!.at, end: k < hi ? changes[k + 1]!.at : Infinity, offset: changes[k]!.after });
  }
  return segs;
}

/**
 * The oracle: instants at which floating wall time `wall` fires. Real
 * occurrences are the instants t with t + offset(t) = wall; none (a gap): the
 * wall time shifted forward by the gap's length, i.e. read with the offset in
 * force before the gap; two (a fall-back): both when the expression repeats,
 * else the first.
 */
function oracleInstants(segs: Segment[], wall: number, repeats: boolean): number[] {
  const real: number[] = [];
  for (const s of segs) {
    const t = wall - s.offset;
    if (t >= s.start && t < s.end) real.push(t);
  }
  real.sort((a, b) => a - b);
  if (real.length === 0) {
    for (let k = 1; k < segs.length; k++) {
      const before = segs[k - 1]!.offset;
      const after = segs[k]!.offset;
      const at = segs[k]!.start;
      if (after > before && wall >= at + before && wall < at + after) return [wall - before];
    }
    throw new Error(`wall ${new Date(wall).toISOString()} neither occurs nor lies in a gap`);
  }
  return repeats ? real : [real[0]!];
}

/** An expression, its wall times around one change, and how far from the change its fires are compared. */
type Probe = { expr: string; repeats: boolean; walls: number[]; span: number };

const hhmm = (wall: number) => {
  const d = new Date(wall);
  return { h: d.getUTCHours(), m: d.getUTCMinutes() };
};
const floorMinute = (t: number) => Math.floor(t / MINUTE) * MINUTE;

/** Daily fixed time `m h * * *`: its wall times on the days around `wall`. */
function daily(wall: number): Probe {
  const { h, m } = hhmm(wall);
  const day0 = Math.floor(wall / DAY) * DAY;
  const walls: number[] = [];
  for (let d = -4; d <= 4; d++) walls.push(day0 + d * DAY + h * HOUR + m * MINUTE);
  return { expr: `${m} ${h} * * *`, repeats: false, walls, span: 36 * HOUR };
}

function every(stepMinutes: number, expr: string, c: Change): Probe {
  const delta = Math.abs(c.after - c.before);
  const step = stepMinutes * MINUTE;
  const walls: number[] = [];
  const first = Math.floor((c.at + Math.min(c.before, c.after) - delta - 4 * HOUR) / step) * step;
  for (let w = first; w <= c.at + Math.max(c.before, c.after) + delta + 4 * HOUR; w += step) walls.push(w);
  return { expr, repeats: true, walls, span: delta + 75 * MINUTE };
}

/** The expressions the issue of uneven clock changes names, for one change. */
function probesFor(c: Change): Probe[] {
  const lowWall = c.at + Math.min(c.before, c.after); // first wall time the change affects
  const highWall = c.at + Math.max(c.before, c.after); // first wall time after it
  const probes: Probe[] = [daily(floorMinute(lowWall) + (lowWall % MINUTE === 0 ? 0 : MINUTE))];
  if (highWall - lowWall >= 2 * MINUTE) probes.push(daily(floorMinute(lowWall + (highWall - lowWall) / 2)));
  probes.push(daily(Math.floor(lowWall / DAY) * DAY)); // midnight of the change day
  probes.push(every(15, '*/15 * * * *', c), every(60, '0 * * * *', c));
  return probes;
}

const parsed = new Map<string, ParsedCron>();
function tickflowFires(expr: string, tz: string, from: number, count: number): number[] {
  const key = `${tz}|${expr}`;
  let p = parsed.get(key);
  if (!p) parsed.set(key, (p = parseCron(expr, tz)));
  const out: number[] = [];
  if (count === 0) return out;
  for (const t of cronFireTimes(p, new Date(from))) {
    out.push(t.getTime());
    if (out.length >= count) break;
  }
  return out;
}

const FROM = Date.UTC(2000, 0, 1);
const TO = Date.UTC(2041, 0, 1);
const zones = Intl.supportedValuesOf('timeZone');
// Computed once for the whole file.
const changes = new Map(zones.map((tz) => [tz, changesOf(tz, FROM - 14 * DAY, TO + 14 * DAY)]));

describe('every clock change of every zone, 2000-2040', () => {
  it('finds the uneven changes the rules must cover', () => {
    const all = [...changes.values()].flat().filter((c) => c.at >= FROM && c.at < TO);
    expect(zones.length).toBeGreaterThan(300);
    expect(all.length).toBeGreaterThan(10_000);
    const lengths = new Set(all.map((c) => Math.abs(c.after - c.before) / MINUTE));
    expect(lengths).toContain(30); // Lord Howe
    expect(lengths).toContain(1440); // Apia, 2011
    const lordHowe = changes.get('Australia/Lord_Howe')!.find((c) => c.at === Date.parse('2026-10-03T15:30:00Z'));
    expect(lordHowe).toEqual({ at: Date.parse('2026-10-03T15:30:00Z'), before: 630 * MINUTE, after: 660 * MINUTE });
  });

  it('Tickflow fires where the oracle does, around every change, from before and from inside it', () => {
    let checked = 0;
    const failures: string[] = [];
    for (const tz of zones) {
      const list = changes.get(tz)!;
      list.forEach((c, i) => {
        if (c.at < FROM || c.at >= TO) return;
        const segs = segmentsAround(list, i);
        for (const probe of probesFor(c)) {
          const all = [...new Set(probe.walls.flatMap((w) => oracleInstants(segs, w, probe.repeats)))].sort((a, b) => a - b);
          // Only instants the enumerated wall times fully cover.
          const windowEnd = c.at + probe.span;
          const half = Math.abs(c.after - c.before) / 2;
          // From before the change, from inside a repeated interval's first pass, and from inside the gap's shifted times.
          for (const from of [c.at - probe.span, c.at - half, c.at + half]) {
            const expected = all.filter((t) => t > from && t <= windowEnd);
            const got = tickflowFires(probe.expr, tz, from, expected.length);
            checked++;
            if (got.length !== expected.length || got.some((t, k) => t !== expected[k])) {
              failures.push(
                `${tz} change at ${new Date(c.at).toISOString()} (${(c.after - c.before) / MINUTE} min) "${probe.expr}" from ${new Date(from).toISOString()}: ` +
                  `expected ${expected.map((t) => new Date(t).toISOString()).join(',')} got ${got.map((t) => new Date(t).toISOString()).join(',')}`,
              );
            }
          }
        }
      });
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(150_000);
  }, 60_000);

  it('an expression that fires only on change days (the nth weekday of the month, at a changed wall time) fires there', () => {
    // "02:30 on the 2nd Sunday of March" in New York: every wall time of it lies in a gap, so no wall time outside a
    // change ever comes to release the ones held next to a change (a walk that waited for one never ended). The
    // changes of 2024-2029 (cron-parser's search for an nth weekday a year on is the slow part).
    let checked = 0;
    const failures: string[] = [];
    for (const tz of zones) {
      const list = changes.get(tz)!;
      list.forEach((c, i) => {
        if (c.at < Date.UTC(2024, 0, 1) || c.at >= Date.UTC(2030, 0, 1)) return;
        const lowWall = c.at + Math.min(c.before, c.after);
        const highWall = c.at + Math.max(c.before, c.after);
        // a whole minute inside the changed wall times (none for a change under two minutes long)
        const wall = floorMinute(lowWall + (highWall - lowWall) / 2);
        if (wall < lowWall || wall >= highWall) return;
        const d = new Date(wall);
        const { h, m } = hhmm(wall);
        const expr = `${m} ${h} * ${d.getUTCMonth() + 1} ${d.getUTCDay()}#${Math.ceil(d.getUTCDate() / 7)}`;
        const expected = oracleInstants(segmentsAround(list, i), wall, false)[0]!;
        const from = c.at - 2 * DAY;
        checked++;
        try {
          const [got] = tickflowFires(expr, tz, from, 1);
          if (got !== expected) failures.push(`${tz} "${expr}" from ${new Date(from).toISOString()}: expected ${new Date(expected).toISOString()}, got ${got === undefined ? 'none' : new Date(got).toISOString()}`);
        } catch (e) {
          failures.push(`${tz} "${expr}" from ${new Date(from).toISOString()}: ${(e as Error).message}`);
        }
      });
    }
    expect(failures.slice(0, 10)).toEqual([]);
    expect(checked).toBeGreaterThan(1_000);
  }, 60_000);

  it('agrees with nextCronFireTimes for the handed Lord Howe case', () => {
    expect(nextCronFireTimes('*/5 * * * *', 'Australia/Lord_Howe', new Date('2026-10-03T15:20:00Z'), 2).map((d) => d.toISOString())).toEqual([
      '2026-10-03T15:25:00.000Z',
      '2026-10-03T15:30:00.000Z',
    ]);
  });
});
