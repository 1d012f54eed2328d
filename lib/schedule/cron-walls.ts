import type { CronExpression } from 'cron-parser';

/**
 * The field sets of an expression without `L`, `#` or `W`, for a fast search of
 * wall times in plain calendar arithmetic (cron-parser's own next() costs
 * tens of microseconds per step, too slow for a tick over many jobs).
 */
export type PlainFields = {
  seconds: number[];
  minutes: number[];
  hours: number[];
  /** Index 1-31. */
  daysOfMonth: boolean[];
  /** Index 1-12. */
  months: boolean[];
  /** Index 0-6, Sunday 0. */
  daysOfWeek: boolean[];
  /** Day rule of Vixie cron and cron-parser: both restricted = either matches; one restricted = it must match. */
  domRestricted: boolean;
  dowRestricted: boolean;
};

/** PlainFields of a parsed cron-parser expression, or null when it uses `L` or `#` (cron-parser then steps itself). */
export function plainFields(expr: CronExpression): PlainFields | null {
  const f = expr.fields;
  if (f.dayOfMonth.hasLastChar || f.dayOfWeek.hasLastChar || f.dayOfWeek.nthDay) return null;
  const flags = (values: readonly (number | string)[], size: number) => {
    const out = new Array<boolean>(size).fill(false);
    for (const v of values) if (typeof v === 'number' && v < size) out[v] = true;
    return out;
  };
  const dow = new Array<boolean>(7).fill(false);
  for (const v of f.dayOfWeek.values) if (typeof v === 'number') dow[v % 7] = true;
  return {
    seconds: [...f.second.values].map(Number).sort((a, b) => a - b),
    minutes: [...f.minute.values].map(Number).sort((a, b) => a - b),
    hours: [...f.hour.values].map(Number).sort((a, b) => a - b),
    daysOfMonth: flags(f.dayOfMonth.values, 32),
    months: flags(f.month.values, 13),
    daysOfWeek: dow,
    domRestricted: !f.dayOfMonth.isWildcard,
    dowRestricted: !f.dayOfWeek.isWildcard,
  };
}

const firstAtLeast = (sorted: number[], v: number): number | undefined => {
  for (const x of sorted) if (x >= v) return x;
  return undefined;
};

// A day search that finds nothing in this many steps never fires (400 years of days).
const MAX_STEPS = 146_100;

/**
 * The first floating wall time (calendar fields read as UTC, ms) strictly after
 * `after` that the fields allow, or null if none within 400 years.
 */
export function nextPlainWall(p: PlainFields, after: number): number | null {
  let t = Math.floor(after / 1000) * 1000 + 1000;
  for (let i = 0; i < MAX_STEPS; i++) {
    const d = new Date(t);
    const year = d.getUTCFullYear();
    const month = d.getUTCMonth(); // 0-11
    const day = d.getUTCDate();
    if (!p.months[month + 1]) {
      t = Date.UTC(year, month + 1, 1);
      continue;
    }
    const domOk = p.daysOfMonth[day]!;
    const dowOk = p.daysOfWeek[d.getUTCDay()]!;
    const dayOk = p.domRestricted && p.dowRestricted ? domOk || dowOk : p.domRestricted ? domOk : p.dowRestricted ? dowOk : true;
    if (!dayOk) {
      t = Date.UTC(year, month, day + 1);
      continue;
    }
    const hour = d.getUTCHours();
    const h = firstAtLeast(p.hours, hour);
    if (h === undefined) {
      t = Date.UTC(year, month, day + 1);
      continue;
    }
    if (h > hour) {
      t = Date.UTC(year, month, day, h);
      continue;
    }
    const minute = d.getUTCMinutes();
    const m = firstAtLeast(p.minutes, minute);
    if (m === undefined) {
      t = Date.UTC(year, month, day, hour + 1);
      continue;
    }
    if (m > minute) {
      t = Date.UTC(year, month, day, hour, m);
      continue;
    }
    const s = firstAtLeast(p.seconds, d.getUTCSeconds());
    if (s === undefined) {
      t = Date.UTC(year, month, day, hour, minute + 1);
      continue;
    }
    return Date.UTC(year, month, day, hour, minute, s);
  }
  return null;
}
