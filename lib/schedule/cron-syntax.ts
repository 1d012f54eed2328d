import { ScheduleError } from './errors';

/**
 * What cron-parser cannot express on its own, split out of a user expression.
 * - `fields`: 6 fields, seconds first, as cron-parser takes them (DOM is '*'
 *   when `weekday` is set: the real day is chosen per month).
 * - `weekday`: Quartz `nW` / `LW` (nearest weekday to day n / last weekday);
 *   cron-parser 5 rejects W.
 * - `years`: allowed years from an optional 7th (Quartz) year field, sorted; null = any.
 */
export type CronSyntax = {
  fields: [string, string, string, string, string, string];
  weekday: { day: number | 'L' } | null;
  years: number[] | null;
};

// cron-parser 5 has no @midnight and extra macros we do not promise; own the table.
const MACROS: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

/** Years a 7th field may name; Quartz allows 1970-2099, a little headroom costs nothing. */
export const MIN_YEAR = 1970;
export const MAX_YEAR = 2199;

/** Names of the fields by index, seconds first and the year last, as errors name them. */
export const FIELD_NAMES = ['second', 'minute', 'hour', 'day of month', 'month', 'day of week', 'year'] as const;

/**
 * An expression split into its fields, with the problems of the syntax cron-parser does not read
 * (H, W, the year field); cron.ts checks the rest with cron-parser and reports both together.
 */
export type CronSplit = {
  syntax: CronSyntax;
  /** the user's field texts by field index (FIELD_NAMES); a 5-field expression has second '0', no year */
  texts: (string | undefined)[];
  /** what is wrong with a field by index, in plain words; undefined where this module found nothing */
  own: (string | undefined)[];
  /** a W day with a day of week other than `*` or `?`: a clash of two fields, not a field's own problem */
  clash: string | null;
};

/**
 * Splits `expr` (5 fields, 6 with leading seconds, 7 with trailing year, or a macro).
 * `opts.refuseOversizedSteps` (a schedule being saved, parseCron's option) also reports a step
 * larger than what it steps through (stepProblem); a stored schedule is read without that rule.
 * Throws ScheduleError('cron') only when the fields cannot be told apart (empty, a wrong
 * number of fields, an unknown macro); a bad field is reported in `own`, never thrown.
 */
export function splitCron(expr: string, opts: { refuseOversizedSteps?: boolean } = {}): CronSplit {
  if (typeof expr !== 'string' || expr.trim() === '') {
    // cron-parser reads '' as '* * * * * *' (every second): never what a user meant.
    throw new ScheduleError('cron', 'Cron expression is empty');
  }
  const trimmed = expr.trim();
  if (trimmed.startsWith('@')) {
    const macro = MACROS[trimmed.toLowerCase()];
    if (!macro) {
      throw new ScheduleError('cron', `Unknown macro ${trimmed}; use one of ${Object.keys(MACROS).join(', ')}`);
    }
    const fields = macro.split(' ') as CronSyntax['fields'];
    return { syntax: { fields, weekday: null, years: null }, texts: [...fields], own: [], clash: null };
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length < 5 || parts.length > 7) {
    throw new ScheduleError('cron', `Cron expression needs 5, 6 (with seconds) or 7 (with year) fields, got ${parts.length}`);
  }
  const six = (parts.length === 5 ? ['0', ...parts] : parts.slice(0, 6)) as CronSyntax['fields'];
  const texts: (string | undefined)[] = [...six, parts[6]];
  const own: (string | undefined)[] = [];
  texts.forEach((t, i) => {
    // cron-parser's H is random per parse unless seeded: next times would change between calls.
    if (t !== undefined && hasHash(t)) own[i] = "'H' (hashed) values are not supported; use the job's stagger instead";
  });
  if (opts.refuseOversizedSteps) {
    six.forEach((t, i) => {
      if (own[i] === undefined && !(i === 3 && /W/i.test(t))) own[i] = stepProblem(i, t);
    });
  }
  let years: number[] | null = null;
  if (parts.length === 7 && own[6] === undefined) {
    const y = parseYears(parts[6]!, opts.refuseOversizedSteps === true);
    if (typeof y === 'string') own[6] = y;
    else years = y;
  }
  let weekday: CronSyntax['weekday'] = null;
  let clash: string | null = null;
  if (own[3] === undefined && /W/i.test(six[3])) {
    const w = parseWeekday(six[3]);
    if (typeof w === 'string') own[3] = w;
    else weekday = w;
    if (six[5] !== '*' && six[5] !== '?') clash = `day of month "${six[3]}": 'W' needs day of week '*' or '?', got "${six[5]}"`;
  }
  if (weekday) six[3] = '*';
  return { syntax: { fields: six, weekday, years }, texts, own, clash };
}

/** The values of each field cron-parser reads (day of week: 0 and 7 are both Sunday), by index in FIELD_NAMES. */
const FIELD_RANGES: [number, number][] = [[0, 59], [0, 59], [0, 23], [1, 31], [1, 12], [0, 7]];
const NAMES: Record<number, string[]> = {
  4: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  5: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

function fieldValue(field: number, token: string): number | null {
  if (/^\d+$/.test(token)) return Number(token);
  const i = NAMES[field]?.indexOf(token.toUpperCase()) ?? -1;
  return i < 0 ? null : field === 4 ? i + 1 : i;
}

/**
 * A step larger than what it steps through (every minute by 99999999999 or by 61, `0-30/45`), in
 * the words of the other field errors, or undefined. cron-parser takes any step and keeps only
 * the first value, so a minute field of every minute by 99999999999 would fire like `0` without a word. A step may be at most
 * the number of values it steps through: the field's (`*` and `?`: 60 for a minute, 24 for an hour,
 * 31 for a day of month, 12 for a month, 7 for a day of week), a range's (`0-30`: 31), or from a
 * start to the field's end (`5/n` is `5-59/n` in minutes). A step of 0, a bad range or value is
 * left to cron-parser, whose message cron.ts words.
 */
function stepProblem(field: number, text: string): string | undefined {
  const [min, max] = FIELD_RANGES[field]!;
  for (const token of text.split(',')) {
    const m = /^(\*|\?|([0-9a-z]+)(?:-([0-9a-z]+))?)\/(\d+)$/i.exec(token);
    if (!m) continue;
    const step = Number(m[4]);
    if (step === 0) continue;
    let values: number;
    let of: string;
    if (m[2] === undefined) {
      values = field === 5 ? 7 : max - min + 1;
      of = `the ${values} values of ${min}-${field === 5 ? 6 : max}`;
    } else {
      const from = fieldValue(field, m[2]);
      const to = m[3] === undefined ? max : fieldValue(field, m[3]);
      if (from === null || to === null || from < min || to > max || from > to) continue;
      values = to - from + 1;
      of = `the ${values} value${values === 1 ? '' : 's'} of ${from}-${to}`;
    }
    if (step > values) return `step ${m[4]} must be between 1 and ${values} (${of})`;
  }
  return undefined;
}

function hasHash(field: string): boolean {
  // Month/day names never contain a bare H token; H appears as 'H', 'H/5', 'H(0-5)'.
  return /(^|[,\s])H(?=$|[,/(])/i.test(field);
}

/** `nW` / `LW`, or what is wrong with the field. */
function parseWeekday(dom: string): CronSyntax['weekday'] | string {
  const m = /^(\d{1,2}|L)W$/i.exec(dom);
  if (!m) return "'W' must be a single day such as 15W or LW";
  if (m[1]!.toUpperCase() === 'L') return { day: 'L' };
  const day = Number(m[1]);
  if (day < 1 || day > 31) return `${day} is outside 1-31`;
  return { day };
}

/** The allowed years, sorted (null: any), or what is wrong with the field in plain words. */
function parseYears(field: string, refuseOversizedSteps: boolean): number[] | null | string {
  if (field === '*' || field === '?') return null;
  const years = new Set<number>();
  for (const token of field.split(',')) {
    const m = /^(\*|\d{4})(?:-(\d{4}))?(?:\/(\d+))?$/.exec(token);
    if (!m) return `${token || '""'} is not a year (2030), a range (2030-2035) or a step (*/2, 2030/2)`;
    const from = m[1] === '*' ? MIN_YEAR : Number(m[1]);
    const to = m[2] ? Number(m[2]) : m[1] === '*' || m[3] ? MAX_YEAR : from;
    const step = m[3] ? Number(m[3]) : 1;
    if (from < MIN_YEAR || to > MAX_YEAR) return `${m[2] ? `range ${m[1]}-${m[2]}` : m[1]} is outside ${MIN_YEAR}-${MAX_YEAR}`;
    if (from > to) return `range ${m[1]}-${m[2]} ends before it starts`;
    if (step < 1) return `step ${m[3]} must be at least 1`;
    if (refuseOversizedSteps && step > to - from + 1) return `step ${m[3]} must be between 1 and ${to - from + 1} (the ${to - from + 1} values of ${from}-${to})`;
    for (let y = from; y <= to; y += step) years.add(y);
  }
  return [...years].sort((a, b) => a - b);
}

/**
 * Day of month that `nW` / `LW` means in a given month (month 1-12), or null
 * when the month has no day n (Quartz: 31W does not fire in a 30-day month).
 * Nearest weekday never crosses the month: 1W on a Saturday is Monday the 3rd.
 */
export function weekdayTarget(year: number, month: number, day: number | 'L'): number | null {
  const dim = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const n = day === 'L' ? dim : day;
  if (n > dim) return null;
  const dow = new Date(Date.UTC(year, month - 1, n)).getUTCDay();
  if (dow === 6) return n === 1 ? 3 : n - 1;
  if (dow === 0) return n === dim ? n - 2 : n + 1;
  return n;
}
