import { CronExpressionParser, type CronExpression } from 'cron-parser';
import { nextPlainWall, plainFields, type PlainFields } from './cron-walls';
import { splitCron, weekdayTarget, FIELD_NAMES, MIN_YEAR, type CronSplit, type CronSyntax } from './cron-syntax';
import { ScheduleError } from './errors';
import { isValidTimeZone } from './timezone';
import { zoneAround, zoneOffsetMs } from './zone-offset';

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
  /**
   * True when the second, minute or hour field is a wildcard or a step (`*`,
   * `*\/15`, `10-50/10`): such an expression fires at both occurrences of a wall
   * time a fall-back repeats; a fixed time fires only at the first (docs/scheduling.md).
   */
  repeatsInFallBack: boolean;
  /** Field sets for the fast wall-time search; null when `L`, `#`, `W` or a year field needs cron-parser's stepping. */
  plain: PlainFields | null;
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
 * `opts.refuseOversizedSteps`: also refuse a step larger than what it steps through
 * (a minute field stepping by 99, a day of month stepping by 40), which cron-parser reads as the
 * field's first value alone.
 * Set where a schedule is saved, previewed or imported; a stored schedule is evaluated without
 * it, so a job saved before the rule keeps firing as it did instead of being paused by the tick.
 */
export function parseCron(expr: string, tz: string, opts: { refuseOversizedSteps?: boolean } = {}): ParsedCron {
  // A parse is a pure function of (expression, zone, rule set) and its result is never mutated, so
  // the tick (1,000 jobs planned per pass, several fire-time walks each) reuses it instead of
  // re-running cron-parser's field parser every time. Failures are not cached.
  const key = `${opts.refuseOversizedSteps ? 's' : ''}\u0000${tz}\u0000${expr}`;
  const hit = parsedCache.get(key);
  if (hit) return hit;
  const parsed = parseCronUncached(expr, tz, opts.refuseOversizedSteps === true);
  if (parsedCache.size >= PARSED_CACHE_MAX) parsedCache.clear();
  parsedCache.set(key, parsed);
  return parsed;
}

/** Parsed expressions kept by parseCron; cleared whole when full (a bound, not an LRU). */
const parsedCache = new Map<string, ParsedCron>();
const PARSED_CACHE_MAX = 10_000;

function parseCronUncached(expr: string, tz: string, refuseOversizedSteps: boolean): ParsedCron {
  if (!isValidTimeZone(tz)) throw new ScheduleError('timezone', `Unknown time zone: ${String(tz)}`);
  const split = splitCron(expr, { refuseOversizedSteps });
  const { syntax } = split;
  const trimmed = expr.trim();
  // read from the fields as written: a list made distinct below no longer shows its `*` or `/`
  const repeatsInFallBack = syntax.fields.slice(0, 3).some((f) => f.includes('*') || f.includes('/'));
  syntax.fields.forEach((field, i) => {
    syntax.fields[i] = distinctList(i, field);
  });
  const problems = cronProblems(split);
  if (problems.length) {
    throw new ScheduleError('cron', `Invalid cron expression "${trimmed}": ${problems.join('; ')}${fieldOrderHint(trimmed)}`);
  }
  const parsed: ParsedCron = {
    expression: trimmed,
    timezone: tz,
    hasSeconds: !trimmed.startsWith('@') && trimmed.split(/\s+/).length >= 6,
    syntax,
    months: [],
    repeatsInFallBack,
    plain: null,
  };
  const base = build(parsed, syntax.fields[3], new Date(0));
  parsed.months = base.fields.month.values.map(Number);
  if (!syntax.weekday && !syntax.years) parsed.plain = plainFields(base);
  // Probe from the first year the expression may use: no fire at all means "never".
  const probeYear = syntax.years ? syntax.years[0]! : 2000;
  const probeFrom = Date.UTC(Math.max(probeYear, MIN_YEAR), 0, 1) - 2 * 86_400_000;
  const first = parsed.plain ? nextPlainWall(parsed.plain, probeFrom) : nextAfter(parsed, probeFrom);
  if (first === null) {
    throw new ScheduleError('cron', `Cron expression "${trimmed}" never fires`);
  }
  return parsed;
}

/**
 * The next `count` fire times of `expr` in `tz` strictly after `from` (UTC
 * instants, ms precision; `from` exclusive). Fewer (possibly none) are returned
 * only when a year field runs out. Clock changes of any length and time of day
 * follow docs/scheduling.md: a wall time in a gap fires shifted forward by the
 * gap's length, a fixed time repeated by a fall-back fires at its first
 * occurrence, wildcard and stepped times fire at every real occurrence.
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
 * More than any zone's offset from UTC has ever been (tzdata's extremes are local mean times of about
 * ±16 h): the instant of a wall time `w` is never before `w` minus this.
 */
const WALL_OFFSET_BOUND_MS = 48 * 3_600_000;
/** Longer than any fire time may wait in cronFireTimes' queue (WALL_OFFSET_BOUND_MS): past it, the walk stops with an error. */
const HELD_TOO_LONG_MS = 7 * 24 * 3_600_000;

/**
 * Lazily walks fire times strictly after `from`, ascending, forward only.
 * Candidate wall times come from cron-parser evaluated in UTC, where no clock
 * ever changes (so its own DST handling, which assumes one-hour changes, is
 * never used); each is then placed on the zone's real timeline by
 * wallToInstant rules (docs/scheduling.md "Clock changes"). Ends when a year
 * field runs out. Throws ScheduleError('cron') if cron-parser hits its loop limit, or (a fault of this
 * walk, never expected) when a fire time waits longer than HELD_TOO_LONG_MS to be given out.
 */
export function* cronFireTimes(cron: ParsedCron, from: Date): Generator<Date, void, undefined> {
  const tz = cron.timezone;
  const after = from.getTime();
  let startWall = after + zoneOffsetMs(tz, after);
  const near = zoneAround(tz, startWall);
  if ('transition' in near) {
    // Next to a change, earlier wall times can still fire after `from`: the
    // second pass of a repeated interval, or a gap time shifted past `from`.
    const { at, before, after: offAfter } = near.transition;
    startWall = Math.min(startWall, at + Math.min(before, offAfter) - 1);
  }
  // Instants from wall times next to a change arrive out of order; they wait
  // here (ascending, distinct) until a later wall time proves none can precede them.
  const pending: number[] = [];
  let last = after;
  // the wall time read last (HELD_TOO_LONG_MS)
  let lastWall = -Infinity;
  function* emitUpTo(limit: number): Generator<Date, void, undefined> {
    while (pending.length > 0 && pending[0]! <= limit) {
      const t = pending.shift()!;
      if (t > last) {
        last = t;
        yield new Date(t);
      }
    }
  }
  const hold = (t: number) => {
    if (t <= last) return;
    let i = pending.length;
    while (i > 0 && pending[i - 1]! > t) i--;
    if (pending[i - 1] !== t) pending.splice(i, 0, t);
  };
  for (const wall of cronWalls(cron, startWall)) {
    if (pending.length > 0 && lastWall - pending[0]! > HELD_TOO_LONG_MS) {
      // A held instant is given out once the walk is WALL_OFFSET_BOUND_MS past it, so this is a fault of this walk,
      // never a schedule: an error the caller names rather than a loop that holds the process.
      throw new ScheduleError('cron', `Cron expression "${cron.expression}" in ${tz}: a fire time was held back past ${new Date(lastWall).toISOString().slice(0, 10)}`);
    }
    lastWall = wall;
    const z = zoneAround(tz, wall);
    let inOrder: number;
    if ('offset' in z) {
      inOrder = wall - z.offset;
    } else {
      const { at, before, after: offAfter } = z.transition;
      if (wall < at + Math.min(before, offAfter)) {
        inOrder = wall - before;
      } else if (wall >= at + Math.max(before, offAfter)) {
        inOrder = wall - offAfter;
      } else {
        if (offAfter > before) {
          // In the gap: shifted forward by the gap's length (wall - before).
          hold(wall - before);
        } else {
          hold(wall - before);
          if (cron.repeatsInFallBack) hold(wall - offAfter);
        }
        // An expression whose every wall time falls next to a change ("02:30 on the last Sunday of
        // March") brings no in-order wall time to release these: a later wall time maps to an instant
        // after wall - WALL_OFFSET_BOUND_MS, so whatever is held before that is final.
        yield* emitUpTo(wall - WALL_OFFSET_BOUND_MS);
        continue;
      }
    }
    // No later wall time maps before an in-order instant, so everything up to it is final.
    hold(inOrder);
    yield* emitUpTo(inOrder);
  }
  yield* emitUpTo(Infinity);
}

/**
 * Floating wall times (the wall clock's fields read as UTC, ms) of the
 * expression strictly after `startWall`, ascending. Ends when a year field runs out.
 */
function* cronWalls(cron: ParsedCron, startWall: number): Generator<number, void, undefined> {
  if (cron.plain) {
    for (let w = nextPlainWall(cron.plain, startWall); w !== null; w = nextPlainWall(cron.plain, w)) yield w;
    return;
  }
  if (!cron.syntax.weekday && !cron.syntax.years) {
    // Plain expressions: one cron-parser iterator, no re-parse per step.
    const it = build(cron, cron.syntax.fields[3], startWall);
    for (;;) yield step(it);
  }
  let cursor = startWall;
  for (;;) {
    const t = nextAfter(cron, cursor);
    if (t === null) return;
    yield t;
    cursor = t;
  }
}

function build(cron: ParsedCron, dom: string, from: Date | number): CronExpression {
  const f = cron.syntax.fields;
  try {
    return CronExpressionParser.parse(`${f[0]} ${f[1]} ${f[2]} ${dom} ${f[4]} ${f[5]}`, {
      tz: 'UTC',
      currentDate: new Date(from),
    });
  } catch (err) {
    // cronProblems has passed the expression: only a clash it does not know of lands here
    throw new ScheduleError('cron', `Invalid cron expression "${cron.expression}": ${plainCronMessage((err as Error).message)}${fieldOrderHint(cron.expression)}`);
  }
}

/** cron-parser's names of the fields by index in FIELD_NAMES (seconds first). */
const PARSER_FIELDS = ['second', 'minute', 'hour', 'dayOfMonth', 'month', 'dayOfWeek'] as const;

/**
 * Field `i` (an index in FIELD_NAMES below the year) of a list whose items overlap (`*\/15,30`, `1-5,3`, `0,7` in
 * the day of week, where 0 and 7 are both Sunday) as the list of its distinct values (`0,15,30,45`); any other field
 * as given. Vixie cron and cronie (a bit set per field) and Quartz (a sorted set) take such a list, and a crontab
 * line with one must import; cron-parser refuses a value listed twice ("duplicate values found"). A list with an
 * item cron-parser does not read alone is left for cronProblems to report, and so is one with `L`, `#`, `W`, `?`
 * or `H`, whose items are no plain values.
 */
function distinctList(i: number, field: string): string {
  if (!field.includes(',')) return field;
  const values = listValues(i, field);
  if (!values) return field;
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  return distinct.length === values.length ? field : distinct.join(',');
}

/** The values of each item of field `i`'s list in turn (repeats kept; a day of week 7 as 0), or null for a field of no plain values. */
function listValues(i: number, field: string): number[] | null {
  if (/[LW#?H]/i.test(field)) return null;
  const values: number[] = [];
  for (const item of field.split(',')) {
    if (item === '') return null; // an empty item (`1,,2`): reported by cronProblems, not read as `*`
    const probe = ['0', '*', '*', '*', '*', '*'];
    probe[i] = item;
    try {
      const parsed = CronExpressionParser.parse(probe.join(' '), { tz: 'UTC' }).fields[PARSER_FIELDS[i]!].values;
      for (const v of parsed) values.push(i === 5 ? Number(v) % 7 : Number(v));
    } catch {
      return null;
    }
  }
  return values;
}

/**
 * The distinct values (ascending) a plain field allows: field index `i` in FIELD_NAMES below the year (3: day of
 * month 1-31, 5: day of week 0-6, Sunday 0 whether written 0 or 7), `text` as written (`*\/2`, `1-5,3`, `MON`).
 * Null when the field holds `L`, `W`, `#`, `?` or `H`, or does not parse (parseCron names the problem).
 */
export function cronFieldValues(i: number, text: string): number[] | null {
  const values = listValues(i, text);
  return values && [...new Set(values)].sort((a, b) => a - b);
}

/**
 * Everything wrong with a split expression, so that a form names every bad field at once:
 * first each field's own problem in field order (second … year; cron-parser's checks parse one
 * field with the others `*`, cron-syntax.ts's check H, W and the year), as
 * `minute "61": 61 is outside 0-59`; then the clashes between fields that are each fine alone
 * (a W day with a day of week, 31 February), checked with the bad fields read as `*`.
 * Empty when the expression parses.
 */
function cronProblems({ syntax, texts, own, clash }: CronSplit): string[] {
  const out: string[] = [];
  const bad = new Set<number>();
  texts.forEach((value, i) => {
    if (value === undefined) return;
    let problem = own[i];
    // W (cron-syntax.ts) and the year field are Tickflow's own syntax, which cron-parser cannot read
    if (problem === undefined && i < 6 && !(i === 3 && syntax.weekday)) {
      const probe = ['0', '*', '*', '*', '*', '*'];
      // the field as cron-parser reads it (distinctList), named below as the user wrote it
      probe[i] = syntax.fields[i]!;
      try {
        CronExpressionParser.parse(probe.join(' '), { tz: 'UTC' });
      } catch (e) {
        problem = plainCronMessage((e as Error).message, i, value);
      }
    }
    if (problem === undefined) return;
    bad.add(i);
    out.push(`${FIELD_NAMES[i]} "${value}": ${problem}`);
  });
  if (clash) out.push(clash);
  const f = syntax.fields.map((v, i) => (bad.has(i) ? '*' : v));
  if (bad.has(3)) f[3] = '*';
  try {
    CronExpressionParser.parse(f.join(' '), { tz: 'UTC' });
  } catch (e) {
    const message = (e as Error).message;
    // cron-parser's words for a fixed day no allowed month has (31 in February, 31 in April)
    out.push(/^Invalid explicit day of month/.test(message) ? `day of month "${f[3]}" never occurs in month "${f[4]}"` : plainCronMessage(message));
  }
  return out;
}

/**
 * cron-parser's messages in plain words, about the field as the user wrote it (`field`: index in
 * FIELD_NAMES; `text`: the field's text): "Constraint error, got value 61 expected range 0-59" ->
 * "61 is outside 0-59". Its own wording is kept only for a message not known here.
 */
function plainCronMessage(message: string, field?: number, text?: string): string {
  const value = /^Constraint error, got value (\S+) expected range (\S+)$/.exec(message);
  if (value) return `${value[1]} is outside ${value[2]}`;
  const range = /^Constraint error, got range (\S+) expected range (\S+)$/.exec(message);
  if (range) {
    // "1-", "-1" and "L-3" reach cron-parser as a range with a missing end
    if (range[1]!.includes('NaN')) return text && /^L-/i.test(text) ? 'L-n (n days before the last) is not supported; use L for the last day' : 'a range needs a start and an end, such as 1-5';
    return `range ${range[1]} is outside ${range[2]}`;
  }
  const backwards = /^Invalid range: (\S+), min\(\d+\) > max\(\d+\)$/.exec(message);
  if (backwards) return `range ${backwards[1]} runs backwards: write the smaller number first`;
  if (/^Constraint error, cannot repeat at every 0 time/.test(message)) return 'a step (/n) must be a whole number of at least 1, such as */5';
  const alias = /^Validation error, cannot resolve alias "([^"]*)"/.exec(message);
  if (alias) return `"${alias[1]!.toUpperCase()}" is not a ${field === 4 ? 'month name (JAN-DEC)' : 'day name (SUN-SAT)'}`;
  if (/^Constraint error, invalid dayOfWeek occurrence number/.test(message)) return '# needs the week of the month after it, 1-5, such as 5#2 (the second Friday)';
  const hashWith = /^Constraint error, invalid dayOfWeek `#` and `(.)` special characters are incompatible/.exec(message);
  if (hashWith) return `# (the nth weekday) cannot be combined with "${hashWith[1]}": write one day and week, such as 5#2`;
  if (/Validation error, unexpected standalone L$/.test(message)) return 'L alone is not a day of week: write the day before it, such as 5L (the last Friday)';
  const twice = /Validation error, duplicate values found: (\S+)$/.exec(message);
  if (twice) return `${twice[1]} is listed twice`;
  if (/^Invalid list value format/.test(message)) return 'a list has an empty item: write values between commas, such as 1,15';
  if (/^Invalid characters/.test(message)) {
    return `only digits${field === 4 || field === 5 ? ', names' : ''} and * , - /${field === 3 || field === 5 ? ' ? L' : ''}${field === 5 ? ' #' : ''}${field === 3 ? ' W' : ''} may appear here`;
  }
  return message;
}

/** Six or seven fields start with seconds (cron-parser, Quartz): say so, since `0 0 * * * 2020` reads as a year to many. */
function fieldOrderHint(expression: string): string {
  if (expression.startsWith('@')) return '';
  const n = expression.split(/\s+/).length;
  if (n === 6) return ' (6 fields read as: second minute hour day-of-month month day-of-week)';
  return n === 7 ? ' (7 fields read as: second minute hour day-of-month month day-of-week year)' : '';
}

function step(it: CronExpression): number {
  try {
    return it.next().getTime();
  } catch (err) {
    throw new ScheduleError('cron', `Cron expression never fires (${(err as Error).message})`);
  }
}

/** Floating wall time of midnight starting day 1 of `month` (1-12) in `year`. */
function monthStart(year: number, month: number): number {
  return Date.UTC(year, month - 1, 1);
}

function nextAllowedMonthStart(cron: ParsedCron, year: number, month: number): number {
  const later = cron.months.find((m) => m > month);
  return later === undefined ? monthStart(year + 1, cron.months[0]!) : monthStart(year, later);
}

// Next floating wall time strictly after `cursor` honouring W and year fields, by
// fixing the day of month per month and jumping whole months/years when the pick is wrong.
function nextAfter(cron: ParsedCron, cursor: number): number | null {
  const { weekday, years } = cron.syntax;
  for (let i = 0; i < MAX_JUMPS; i++) {
    // +1 ms: the earliest candidate, so a cursor of monthStart-1 reads as the new month.
    const at = floatingFields(cursor + 1);
    if (years) {
      const y = years.find((v) => v >= at.year);
      if (y === undefined) return null;
      if (y > at.year) {
        cursor = monthStart(y, 1) - 1;
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
    const got = floatingFields(t);
    if (weekday && (got.year !== at.year || got.month !== at.month)) {
      // Not the result's month: its W day differs from this month's, so re-pick there.
      cursor = nextAllowedMonthStart(cron, at.year, at.month) - 1;
      continue;
    }
    if (years && got.year !== at.year) {
      cursor = monthStart(got.year, 1) - 1;
      continue;
    }
    return t;
  }
  throw new ScheduleError('cron', `Cron expression "${cron.expression}" never fires`);
}

function floatingFields(wall: number): { year: number; month: number } {
  const d = new Date(wall);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}
