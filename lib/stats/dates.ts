import { formatDate } from '../time/format.ts';

/** A calendar date string `YYYY-MM-DD`. */
export type IsoDate = string;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** true for a real calendar date `YYYY-MM-DD` (rejects 2026-02-30). */
export function isIsoDate(s: string): boolean {
  const m = DATE_RE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/**
 * The calendar date of an instant in zone `tz` — with the stats zone
 * (lib/stats/current-zone.ts), the same day boundary the engine's stats upsert
 * uses (`(now AT TIME ZONE tickflow_stats_tz())::date`).
 * E.g. 2026-03-01T23:30Z is 2026-03-02 in Asia/Shanghai.
 */
export function statDateOf(instant: Date, tz: string): IsoDate {
  return formatDate(instant, tz);
}

/** `date` + `days` (calendar arithmetic, may be negative). */
export function addDays(date: IsoDate, days: number): IsoDate {
  const m = DATE_RE.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return new Date(Date.UTC(+m[1], +m[2] - 1, +m[3] + days)).toISOString().slice(0, 10);
}

/** Days from `from` to `to` inclusive (1 for the same day; <= 0 when from > to). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/** Every date from `from` to `to` inclusive. */
export function dateRange(from: IsoDate, to: IsoDate): IsoDate[] {
  const out: IsoDate[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** A `date` column value (Prisma gives UTC midnight) -> `YYYY-MM-DD`. */
export function dateColumn(d: Date): IsoDate {
  return d.toISOString().slice(0, 10);
}
