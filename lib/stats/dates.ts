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

/**
 * SQL for the first instant (timestamptz) of calendar day `day` (an SQL date expression) in zone `zone` (an SQL
 * text expression naming it, postgresTimeZone): the start of the day whose instants `(t AT TIME ZONE zone)::date`
 * puts on `day`, as the engine books stats (lib/engine/sql/stats-outcome.ts) and the job calendar counts runs.
 * `day::timestamp AT TIME ZONE zone` alone is that instant except where a fall-back repeats midnight
 * (America/Havana goes back from 01:00 to 00:00): PostgreSQL reads a repeated wall time as its later occurrence
 * (PostgreSQL docs B.4 "Handling of Invalid or Ambiguous Timestamps"), an hour into the day, so a range
 * starting that day missed its first hour and a range ending the day before took it in. The earlier
 * occurrence is midnight read with the offset in force a day before; it is the start when it falls on `day`.
 * A midnight that a spring-forward skips (America/Santiago) is read with the offset before the gap, which is
 * the day's first instant already.
 */
export function dayStartSql(day: string, zone: string): string {
  const at = `((${day})::timestamp AT TIME ZONE ${zone})`;
  const dayBefore = `(${at} - interval '1 day')`;
  const offsetBefore = `((${dayBefore} AT TIME ZONE ${zone}) - (${dayBefore} AT TIME ZONE 'UTC'))`;
  const first = `(((${day})::timestamp - ${offsetBefore}) AT TIME ZONE 'UTC')`;
  return `(CASE WHEN ${first} < ${at} AND (${first} AT TIME ZONE ${zone})::date = (${day})::date THEN ${first} ELSE ${at} END)`;
}
