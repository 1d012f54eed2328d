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

/**
 * Splits `expr` (5 fields, 6 with leading seconds, 7 with trailing year, or a
 * macro) into a CronSyntax. Throws ScheduleError('cron') on shape errors only;
 * field values are checked later by cron-parser.
 */
export function splitCron(expr: string): CronSyntax {
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
    return { fields: macro.split(' ') as CronSyntax['fields'], weekday: null, years: null };
  }
  const parts = trimmed.split(/\s+/);
  if (parts.length < 5 || parts.length > 7) {
    throw new ScheduleError('cron', `Cron expression needs 5, 6 (with seconds) or 7 (with year) fields, got ${parts.length}`);
  }
  if (parts.some(hasHash)) {
    // cron-parser's H is random per parse unless seeded: next times would change between calls.
    throw new ScheduleError('cron', "'H' (hashed) values are not supported; use the job's stagger instead");
  }
  const six = (parts.length === 5 ? ['0', ...parts] : parts.slice(0, 6)) as CronSyntax['fields'];
  const years = parts.length === 7 ? parseYears(parts[6]!) : null;
  const weekday = parseWeekday(six);
  if (weekday) six[3] = '*';
  return { fields: six, weekday, years };
}

function hasHash(field: string): boolean {
  // Month/day names never contain a bare H token; H appears as 'H', 'H/5', 'H(0-5)'.
  return /(^|[,\s])H(?=$|[,/(])/i.test(field);
}

function parseWeekday(six: string[]): CronSyntax['weekday'] {
  const dom = six[3]!;
  if (!/W/i.test(dom)) return null;
  const m = /^(\d{1,2}|L)W$/i.exec(dom);
  if (!m) throw new ScheduleError('cron', `'W' must be a single day such as 15W or LW, got ${dom}`);
  if (six[5] !== '*' && six[5] !== '?') {
    throw new ScheduleError('cron', "'W' in day of month needs day of week '*' or '?'");
  }
  if (m[1]!.toUpperCase() === 'L') return { day: 'L' };
  const day = Number(m[1]);
  if (day < 1 || day > 31) throw new ScheduleError('cron', `Day ${day}W is outside 1-31`);
  return { day };
}

function parseYears(field: string): number[] | null {
  if (field === '*' || field === '?') return null;
  const years = new Set<number>();
  for (const token of field.split(',')) {
    const m = /^(\*|\d{4})(?:-(\d{4}))?(?:\/(\d+))?$/.exec(token);
    if (!m) throw new ScheduleError('cron', `Invalid year field token ${token}`);
    const from = m[1] === '*' ? MIN_YEAR : Number(m[1]);
    const to = m[2] ? Number(m[2]) : m[1] === '*' || m[3] ? MAX_YEAR : from;
    const step = m[3] ? Number(m[3]) : 1;
    if (from < MIN_YEAR || to > MAX_YEAR || from > to || step < 1) {
      throw new ScheduleError('cron', `Year ${token} is outside ${MIN_YEAR}-${MAX_YEAR} or malformed`);
    }
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
