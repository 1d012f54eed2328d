// Property tests of the cron walk (lib/schedule/cron.ts) with fast-check: random expressions (lists,
// ranges, steps, L, #, the day-of-month / day-of-week rule, a seconds field) in zones with uneven
// clock changes, from random instants around a change, against a brute-force oracle that knows
// nothing of cron-parser: it enumerates wall times itself, matches them against the fields itself,
// and places each on the zone's timeline with offsets read from Intl, by the rules of
// docs/scheduling.md "Clock changes". cron-dst-exhaustive.test.ts covers every change of every zone
// for a few fixed expressions; this covers many expressions for a few zones.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cronFireTimes, parseCron } from './cron';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

// New York and London (one hour at 02:00 / 01:00), Lord Howe (30 minutes), Chatham (+12:45/+13:45),
// Santiago and Asuncion (midnight does not exist on the spring-forward day), Havana (midnight repeats),
// Dublin (negative summer time in tzdata), Troll (two hours), Kolkata (no change: a control).
const ZONES = [
  'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago',
  'America/Asuncion', 'America/Havana', 'Europe/Dublin', 'Antarctica/Troll', 'Asia/Kolkata',
];

const offsetFormats = new Map<string, Intl.DateTimeFormat>();
/** Offset east of UTC in ms at instant `t`, from Intl's long offset name. */
function offsetOf(tz: string, t: number): number {
  let f = offsetFormats.get(tz);
  if (!f) offsetFormats.set(tz, (f = new Intl.DateTimeFormat('en-GB', { timeZone: tz, timeZoneName: 'longOffset' })));
  const name = f.format(t).split(' ').pop()!;
  if (name === 'GMT') return 0;
  const m = /^GMT([+-])(\d+):(\d+)$/.exec(name)!;
  const v = (Number(m[2]) * 60 + Number(m[3])) * MINUTE;
  return m[1] === '-' ? -v : v;
}

/** Instants (UTC ms) where the zone's offset changes in [from, to): weekly samples, then bisection. */
function changesOf(tz: string, from: number, to: number): number[] {
  const out: number[] = [];
  let prevT = from;
  let prev = offsetOf(tz, from);
  for (let t = from + 7 * DAY; t < to; t += 7 * DAY) {
    const o = offsetOf(tz, t);
    if (o !== prev) {
      let lo = prevT;
      let hi = t;
      while (hi - lo > SECOND) {
        const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND;
        if (offsetOf(tz, mid) === prev) lo = mid;
        else hi = mid;
      }
      out.push(hi);
    }
    prev = o;
    prevT = t;
  }
  return out;
}

const CHANGES = new Map(ZONES.map((tz) => [tz, changesOf(tz, Date.UTC(2020, 0, 1), Date.UTC(2031, 0, 1))]));
/** Per zone, the offset before the first change and after each one: offsets of 2020-2030 without an Intl call each. */
const SEGMENTS = new Map(ZONES.map((tz) => [tz, { first: offsetOf(tz, Date.UTC(2020, 0, 1)), after: CHANGES.get(tz)!.map((at) => offsetOf(tz, at)) }]));
/** offsetOf from the changes found once (the instants probed lie well inside 2020-2030). */
function offsetAt(tz: string, t: number): number {
  const changes = CHANGES.get(tz)!;
  const seg = SEGMENTS.get(tz)!;
  let i = changes.length - 1;
  while (i >= 0 && changes[i]! > t) i--;
  return i < 0 ? seg.first : seg.after[i]!;
}

/** A field as text and the oracle's reading of it. */
type Field = { text: string; values: Set<number> };
/** Day-of-week specials the oracle reads itself: `d#k` (k-th d of the month), `dL` (last d). */
type Dow = Field & { nth?: { day: number; k: number }; last?: number };
type Dom = Field & { last?: boolean };

const range = (lo: number, hi: number, step = 1) => {
  const out: number[] = [];
  for (let v = lo; v <= hi; v += step) out.push(v);
  return out;
};

/**
 * A plain field of values lo..hi: `*`, a value, a range, a step, a stepped range, or a list of those, whose items
 * may overlap (`*\/15,30`, `1-5,3`: cron takes them, lib/schedule/cron.ts distinctList).
 */
function plainField(lo: number, hi: number): fc.Arbitrary<Field> {
  const value = fc.integer({ min: lo, max: hi });
  const item: fc.Arbitrary<Field> = fc.oneof(
    value.map((v) => ({ text: String(v), values: new Set([v]) })),
    fc.tuple(value, value).map(([a, b]) => {
      const [x, y] = a <= b ? [a, b] : [b, a];
      return { text: `${x}-${y}`, values: new Set(range(x, y)) };
    }),
    fc.integer({ min: 1, max: Math.max(1, Math.floor((hi - lo + 1) / 2)) }).map((n) => ({ text: `*/${n}`, values: new Set(range(lo, hi, n)) })),
    fc.tuple(value, value, fc.integer({ min: 1, max: 5 })).map(([a, b, n]) => {
      const [x, y] = a <= b ? [a, b] : [b, a];
      return { text: `${x}-${y}/${n}`, values: new Set(range(x, y, n)) };
    }),
  );
  return fc.oneof(
    fc.constant({ text: '*', values: new Set(range(lo, hi)) }),
    { weight: 4, arbitrary: item },
    fc.array(item, { minLength: 2, maxLength: 3 }).map((items) => ({ text: items.map((i) => i.text).join(','), values: new Set(items.flatMap((i) => [...i.values])) })),
  );
}

const secondField: fc.Arbitrary<Field | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  fc.constantFrom<Field>({ text: '0', values: new Set([0]) }, { text: '*/20', values: new Set([0, 20, 40]) }, { text: '15,45', values: new Set([15, 45]) }),
);
const domField: fc.Arbitrary<Dom> = fc.oneof(
  { weight: 6, arbitrary: plainField(1, 31) },
  fc.constant({ text: '?', values: new Set(range(1, 31)) }),
  fc.constant({ text: 'L', values: new Set<number>(), last: true }),
);
const dowField: fc.Arbitrary<Dow> = fc.oneof(
  { weight: 6, arbitrary: plainField(0, 6) },
  fc.constant({ text: '?', values: new Set(range(0, 6)) }),
  fc.tuple(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 5 })).map(([day, k]) => ({ text: `${day}#${k}`, values: new Set<number>(), nth: { day, k } })),
  fc.integer({ min: 0, max: 6 }).map((day) => ({ text: `${day}L`, values: new Set<number>(), last: day })),
);

type Expr = { second: Field | null; minute: Field; hour: Field; dom: Dom; month: Field; dow: Dow };
const exprArb: fc.Arbitrary<Expr> = fc.record({
  second: secondField,
  // minutes and hours: mostly a few values, so that most of the enumerated day is not a fire
  minute: plainField(0, 59),
  hour: plainField(0, 23),
  dom: domField,
  month: fc.oneof({ weight: 4, arbitrary: fc.constant({ text: '*', values: new Set(range(1, 12)) }) }, plainField(1, 12)),
  dow: dowField,
});
const textOf = (e: Expr) => [e.second?.text, e.minute.text, e.hour.text, e.dom.text, e.month.text, e.dow.text].filter((t) => t !== undefined).join(' ');

/** Does the oracle's reading of `e` take the calendar day of floating wall time `wall`? cron-parser's day rule. */
function dayMatches(e: Expr, wall: number): boolean {
  const d = new Date(wall);
  const day = d.getUTCDate();
  const dim = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  const dow = d.getUTCDay();
  const domOk = e.dom.last ? day === dim : e.dom.values.has(day);
  const dowOk = e.dow.nth ? dow === e.dow.nth.day && Math.ceil(day / 7) === e.dow.nth.k : e.dow.last !== undefined ? dow === e.dow.last && day + 7 > dim : e.dow.values.has(dow);
  const domAny = e.dom.text === '*' || e.dom.text === '?';
  const dowAny = e.dow.text === '*' || e.dow.text === '?';
  if (domAny && dowAny) return true;
  if (domAny) return dowOk;
  if (dowAny) return domOk;
  return domOk || dowOk;
}

/**
 * The oracle: instants in (from, until] at which `e` fires in `tz`. Each wall time the fields allow is placed
 * where the zone shows it: once; in a fall-back's repeat, the first occurrence, or both when the second, minute
 * or hour field holds `*` or `/`; in a spring-forward gap, shifted forward by the gap's length.
 */
function oracle(e: Expr, tz: string, from: number, until: number): number[] {
  const repeats = [e.second?.text ?? '0', e.minute.text, e.hour.text].some((t) => t.includes('*') || t.includes('/'));
  const seconds = [...(e.second?.values ?? new Set([0]))].sort((a, b) => a - b);
  const out = new Set<number>();
  // every wall time of an instant in (from, until] lies in this range (offsets stay within ±15 h)
  const startDay = Math.floor((from - 16 * HOUR) / DAY) * DAY;
  for (let day = startDay; day <= until + 16 * HOUR; day += DAY) {
    const d = new Date(day);
    if (!e.month.values.has(d.getUTCMonth() + 1) || !dayMatches(e, day)) continue;
    for (const h of e.hour.values) {
      for (const m of e.minute.values) {
        for (const s of seconds) {
          const wall = day + h * HOUR + m * MINUTE + s * SECOND;
          const offsets = [...new Set([offsetAt(tz, wall - 2 * DAY), offsetAt(tz, wall), offsetAt(tz, wall + 2 * DAY)])];
          const real = [...new Set(offsets.map((o) => wall - o).filter((t) => wall - offsetAt(tz, t) === t))].sort((a, b) => a - b);
          const at = real.length === 0 ? [wall - Math.min(...offsets)] : repeats ? real : [real[0]!];
          for (const t of at) if (t > from && t <= until) out.add(t);
        }
      }
    }
  }
  return [...out].sort((a, b) => a - b);
}

/** What Tickflow fires in (from, until]. */
function tickflow(expr: string, tz: string, from: number, until: number): number[] {
  const out: number[] = [];
  for (const t of cronFireTimes(parseCron(expr, tz), new Date(from))) {
    if (t.getTime() > until) break;
    out.push(t.getTime());
  }
  return out;
}

const iso = (ts: number[]) => ts.map((t) => new Date(t).toISOString());

/** False for an expression refused because it can never fire (31 April): not a case of these properties. Any other refusal throws. */
function canFire(expr: string): boolean {
  try {
    parseCron(expr, 'UTC');
    return true;
  } catch (e) {
    if (/never occurs|never fires/.test((e as Error).message)) return false;
    throw e;
  }
}

/** A zone and an instant within 30 hours of one of its clock changes of 2020-2030 (any instant for a zone without). */
const zoneAndFrom = fc.constantFrom(...ZONES).chain((tz) => {
  const changes = CHANGES.get(tz)!;
  const near = changes.length
    ? fc.tuple(fc.constantFrom(...changes), fc.integer({ min: -30 * HOUR, max: 30 * HOUR })).map(([at, dt]) => at + dt)
    : fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) });
  return near.map((from) => ({ tz, from }));
});

describe('cron fire times: properties, against a brute-force oracle', () => {
  it('the zones have the changes the properties are about', () => {
    expect(CHANGES.get('Australia/Lord_Howe')!.length).toBeGreaterThan(15);
    expect(CHANGES.get('Asia/Kolkata')).toEqual([]);
    // the oracle's offsets are Intl's
    for (const tz of ZONES) for (const at of CHANGES.get(tz)!) for (const t of [at - 1, at]) expect(offsetAt(tz, t)).toBe(offsetOf(tz, t));
  });

  it('fires exactly where the oracle does, in the 30 hours after a random instant near a clock change', () => {
    fc.assert(
      fc.property(exprArb, zoneAndFrom, (e, { tz, from }) => {
        const expr = textOf(e);
        fc.pre(canFire(expr));
        const until = from + 30 * HOUR;
        expect(iso(tickflow(expr, tz, from, until)), `${expr} in ${tz} from ${new Date(from).toISOString()}`).toEqual(iso(oracle(e, tz, from, until)));
      }),
      { numRuns: 150 },
    );
  }, 30_000);

  it('every fire is strictly after the one before, and a walk started at any fire goes on with the same ones', () => {
    fc.assert(
      fc.property(exprArb, zoneAndFrom, fc.nat(20), (e, { tz, from }, pick) => {
        const expr = textOf(e);
        fc.pre(canFire(expr));
        const fires = tickflow(expr, tz, from, from + 30 * HOUR).slice(0, 60);
        for (let i = 1; i < fires.length; i++) expect(fires[i]!).toBeGreaterThan(fires[i - 1]!);
        if (fires.length < 2) return;
        // restarting from a fire (the tick moves next_run_at to the fire after the one it fired) skips nothing
        const k = pick % (fires.length - 1);
        const again = tickflow(expr, tz, fires[k]!, fires[fires.length - 1]!);
        expect(iso(again)).toEqual(iso(fires.slice(k + 1)));
      }),
      { numRuns: 100 },
    );
  }, 30_000);
});
