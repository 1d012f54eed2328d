import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { splitCron, weekdayTarget, MIN_YEAR, type CronSyntax } from './cron-syntax';
import { ScheduleError } from './errors';
import { isValidTimeZone, wallClock } from './timezone';

/** A validated cron expression bound to its IANA zone (result of parseCron). */
export type ParsedCron = {
  /** The expression as given (trimmed). */
  expression: string;
  timezone: string;
  /** True when the user wrote a seconds field (6 or 7 fields); false for 5 fields and macros. */
  hasSeconds: boolean;
  syntax: CronSyntax;
  /** Months (1-12) the month field allows; W needs them to pick a day per month. */
  months: number[];
};

// Upper bound on month/year jumps for W and year fields in one next-time search;
// a W day fires at least yearly if it fires at all, so this only trips on "never".
const MAX_JUMPS = 2000;

/**
 * Validates `expr` in IANA zone `tz`. Accepts 5 fields, 6 (leading seconds),
 * 7 (trailing Quartz year), `? L # W` and the macros @yearly @annually @monthly
 * @weekly @daily @midnight @hourly. Throws ScheduleError('timezone') for an
 * unknown zone and ScheduleError('cron') for bad syntax or an expression that
 * can never fire (e.g. `0 0 31 4 *`). Time-independent: an expression whose
 * year field lies wholly in the past is valid here, it just has no more fires.
 */
export function parseCron(expr: string, tz: string): ParsedCron {
  if (!isValidTimeZone(tz)) throw new ScheduleError('timezone', `Unknown time zone: ${String(tz)}`);
  const syntax = splitCron(expr);
  const trimmed = expr.trim();
  const parsed: ParsedCron = {
    expression: trimmed,
    timezone: tz,
    hasSeconds: !trimmed.startsWith('@') && trimmed.split(/\s+/).length >= 6,
    syntax,
    months: [],
  };
  // cron-parser rejects impossible fixed dates itself ("Invalid explicit day of month").
  const base = build(parsed, syntax.fields[3], new Date(0));
  parsed.months = base.fields.month.values.map(Number);
  // Probe from the first year the expression may use: no fire at all means "never".
  const probeYear = syntax.years ? syntax.years[0]! : 2000;
  const probeFrom = Date.UTC(Math.max(probeYear, MIN_YEAR), 0, 1) - 2 * 86_400_000;
  if (nextAfter(parsed, probeFrom) === null) {
    throw new ScheduleError('cron', `Cron expression "${trimmed}" never fires`);
  }
  return parsed;
}

/**
 * The next `count` fire times of `expr` in `tz` strictly after `from` (UTC
 * instants, ms precision; `from` exclusive). Fewer (possibly none) are returned
 * only when a year field runs out. DST follows RFC 5545 / java.time as
 * cron-parser 5 implements it (DESIGN.md §4): gap times shift forward by the gap,
 * fall-back fixed times fire once, hour steps fire every real hour.
 * Throws ScheduleError('cron' | 'timezone' | 'from' | 'count').
 */
export function nextCronFireTimes(expr: string, tz: string, from: Date, count: number): Date[] {
  if (!(from instanceof Date) || Number.isNaN(from.getTime())) throw new ScheduleError('from', 'from must be a valid Date');
  if (!Number.isInteger(count) || count < 0) throw new ScheduleError('count', 'count must be a non-negative integer');
  const out: Date[] = [];
  if (count === 0) return out;
  for (const t of cronFireTimes(parseCron(expr, tz), from)) {
    out.push(t);
    if (out.length >= count) break;
  }
  return out;
}

/**
 * Lazily walks fire times strictly after `from`, forward only (cron-parser's
 * prev() is wrong across spring-forward gaps, upstream #378). Ends when a year
 * field runs out. Throws ScheduleError('cron') if cron-parser hits its loop limit.
 */
export function* cronFireTimes(cron: ParsedCron, from: Date): Generator<Date, void, undefined> {
  if (!cron.syntax.weekday && !cron.syntax.years) {
    // Plain expressions: one cron-parser iterator, no re-parse per step.
    const it = build(cron, cron.syntax.fields[3], from);
    for (;;) yield new Date(step(it));
  }
  let cursor = from.getTime();
  for (;;) {
    const t = nextAfter(cron, cursor);
    if (t === null) return;
    yield new Date(t);
    cursor = t;
  }
}

function build(cron: ParsedCron, dom: string, from: Date | number): CronExpression {
  const f = cron.syntax.fields;
  try {
    return CronExpressionParser.parse(`${f[0]} ${f[1]} ${f[2]} ${dom} ${f[4]} ${f[5]}`, {
      tz: cron.timezone,
      currentDate: new Date(from),
    });
  } catch (err) {
    throw new ScheduleError('cron', `Invalid cron expression "${cron.expression}": ${(err as Error).message}${fieldOrderHint(cron)}`);
  }
}

/** Six or seven fields start with seconds (cron-parser, Quartz): say so, since `0 0 * * * 2020` reads as a year to many. */
function fieldOrderHint(cron: ParsedCron): string {
  if (!cron.hasSeconds) return '';
  const n = cron.expression.split(/\s+/).length;
  return n === 6
    ? ' (6 fields read as: second minute hour day-of-month month day-of-week)'
    : ' (7 fields read as: second minute hour day-of-month month day-of-week year)';
}

function step(it: CronExpression): number {
  try {
    return it.next().getTime();
  } catch (err) {
    throw new ScheduleError('cron', `Cron expression never fires (${(err as Error).message})`);
  }
}

/** First local instant of day 1 of `month` in `year` (cron-parser resolves a midnight DST gap). */
function monthStart(cron: ParsedCron, year: number, month: number): number {
  const it = CronExpressionParser.parse(`0 0 0 1 ${month} *`, {
    tz: cron.timezone,
    currentDate: new Date(Date.UTC(year, month - 1, 1) - 2 * 86_400_000),
  });
  return it.next().getTime();
}

function nextAllowedMonthStart(cron: ParsedCron, year: number, month: number): number {
  const later = cron.months.find((m) => m > month);
  return later === undefined ? monthStart(cron, year + 1, cron.months[0]!) : monthStart(cron, year, later);
}

// Next fire strictly after `cursor` honouring W and year fields, by fixing the
// day of month per month and jumping whole months/years when the pick is wrong.
function nextAfter(cron: ParsedCron, cursor: number): number | null {
  const { weekday, years } = cron.syntax;
  for (let i = 0; i < MAX_JUMPS; i++) {
    // +1 ms: the earliest candidate, so a cursor of monthStart-1 reads as the new month.
    const at = wallClock(new Date(cursor + 1), cron.timezone);
    if (years) {
      const y = years.find((v) => v >= at.year);
      if (y === undefined) return null;
      if (y > at.year) {
        cursor = monthStart(cron, y, 1) - 1;
        continue;
      }
    }
    let dom = cron.syntax.fields[3];
    if (weekday) {
      // A day chosen for a month the month field excludes could be impossible for
      // the allowed months (LW=31 with month 2): skip such months ourselves.
      const target = cron.months.includes(at.month) ? weekdayTarget(at.year, at.month, weekday.day) : null;
      if (target === null) {
        cursor = nextAllowedMonthStart(cron, at.year, at.month) - 1;
        continue;
      }
      dom = String(target);
    }
    const t = step(build(cron, dom, cursor));
    const got = wallClock(new Date(t), cron.timezone);
    if (weekday && (got.year !== at.year || got.month !== at.month)) {
      // Not the result's month: its W day differs from this month's, so re-pick there.
      cursor = nextAllowedMonthStart(cron, at.year, at.month) - 1;
      continue;
    }
    if (years && got.year !== at.year) {
      cursor = monthStart(cron, got.year, 1) - 1;
      continue;
    }
    return t;
  }
  throw new ScheduleError('cron', `Cron expression "${cron.expression}" never fires`);
}
