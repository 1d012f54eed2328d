/**
 * Parses a crontab file into Tickflow shell-job drafts (pure: no I/O, no clock).
 *
 * Understands what Vixie cron / cronie read:
 * - blank lines and `#` comments;
 * - environment lines `NAME=value` (optionally quoted); they apply to the
 *   entries after them. `SHELL` picks the interpreter (default /bin/sh);
 *   `CRON_TZ` sets the zone the entries after it are scheduled in (cronie); `TZ`
 *   does not: cron schedules in its own (the daemon's) zone and only hands
 *   `TZ` to the command's environment, like every other variable
 *   (docs/scheduling.md "Crontab import"); `MAILTO`/`MAILFROM` have no
 *   Tickflow meaning and are dropped;
 * - 5-field entries `m h dom mon dow command`, and with `system: true` the
 *   /etc/crontab and /etc/cron.d layout with a user column before the command;
 * - the day rule: day of month AND day of week when either field starts with `*`, else
 *   either (cronDays);
 * - macros @yearly @annually @monthly @weekly @daily @midnight @hourly
 *   (`@reboot` has no equivalent in a scheduler and is reported);
 * - `%` in the command: the first unescaped `%` ends the command and the rest is
 *   its standard input, later `%` become newlines; `\%` is a literal `%`.
 * A command becomes argv `[SHELL, '-c', command]`: cron itself runs commands
 * through a shell, and Tickflow's shell executor never parses strings.
 */
import { cronFieldValues, parseCron } from '../schedule/cron.ts';
import { isValidTimeZone } from '../schedule/timezone.ts';
import { BIDI_CONTROL } from '../api/schemas.ts';

/**
 * Accounts that own system crontab entries on Debian, Red Hat and Alpine hosts: no command is named so, so a user
 * crontab line whose command starts with one of them and goes on was most likely written for /etc/crontab.
 */
const SYSTEM_ACCOUNTS = new Set(['root', 'daemon', 'bin', 'sys', 'adm', 'nobody', 'www-data', 'postgres', 'mysql', 'backup', 'mail', 'operator', 'apache', 'nginx', 'redis']);

export interface CrontabJob {
  /** a job key derived from the line number and command (unique within one file) */
  key: string;
  /** the command, shortened to fit a job name */
  name: string;
  /** the 5-field expression (macros expanded; a day field that cron reads as `*` written `*`: cronDays) */
  cron: string;
  /** IANA zone of the schedule from a CRON_TZ line before the entry; absent: the import's (daemon's) zone */
  timezone?: string;
  /** the line of that CRON_TZ */
  timezoneLine?: number;
  /** the line of the TZ assignment in `env`, if any (it does not change the schedule) */
  envTzLine?: number;
  /** argv for the shell executor */
  command: string[];
  /** standard input (text after the first unescaped %), if any */
  input?: string;
  env: Record<string, string>;
  /** the user column of system crontabs */
  user?: string;
  /**
   * Read as a user crontab, the command's first word is a system account (`root`, `www-data`, …): most likely the
   * user column of a system crontab (/etc/crontab, /etc/cron.d) read without `system`. The account named.
   */
  userColumnLike?: string;
  /** 1-based line number in the file */
  line: number;
}

export interface CrontabError {
  line: number;
  text: string;
  reason: string;
}

export interface ParseCrontabOptions {
  /** /etc/crontab and /etc/cron.d format: a user column after the 5 time fields */
  system?: boolean;
  /** prefix of generated job keys (default `crontab`) */
  keyPrefix?: string;
}

export const CRON_MACROS: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

const ENV_LINE = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;
const DROPPED_ENV = new Set(['MAILTO', 'MAILFROM', 'CRON_TZ', 'SHELL']);

function unquote(value: string): string {
  if (value.length >= 2 && (value[0] === '"' || value[0] === "'") && value[value.length - 1] === value[0]) {
    return value.slice(1, -1);
  }
  return value;
}

/** Splits a cron command at `%` (see module doc). */
export function splitPercent(raw: string): { command: string; input?: string } {
  let command = '';
  let input: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]!;
    if (ch === '\\' && raw[i + 1] === '%') {
      if (input === undefined) command += '%';
      else input += '%';
      i++;
      continue;
    }
    if (ch === '%') {
      if (input === undefined) input = '';
      else input += '\n';
      continue;
    }
    if (input === undefined) command += ch;
    else input += ch;
  }
  return input === undefined ? { command } : { command, input };
}

function slug(command: string): string {
  const first = command.trim().split(/\s+/)[0] ?? 'cmd';
  const base = first.split('/').filter(Boolean).pop() ?? 'cmd';
  const s = base.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 40);
  return s || 'cmd';
}

function jobName(command: string): string {
  const oneLine = command.replace(/\s+/g, ' ').trim();
  return oneLine.length <= 200 ? oneLine : `${oneLine.slice(0, 197)}...`;
}

/**
 * A 5-field crontab schedule with its days read as cron reads them, in the expression Tickflow reads the same way,
 * or why there is none. Vixie cron and cronie run an entry on days that match the day of month AND the day of
 * week when either field starts with `*` (their DOM_STAR / DOW_STAR flags: `*\/2` counts as `*`), and on days that
 * match either only when neither does; Tickflow (cron-parser) takes either whenever neither field is exactly `*`
 * or `?`. So `0 0 1 * *\/1` (the 1st of each month in cron) is written `0 0 1 * *`, and `0 0 *\/2 * 1` (Mondays
 * that are odd days in cron), which no expression Tickflow reads means, is refused with the reason.
 */
function cronDays(cron: string): { cron: string } | { problem: string } {
  const f = cron.split(' ');
  const [dom, dow] = [f[2]!, f[4]!];
  // `*` or `?` (any day) in one field: the other alone decides, in cron as in Tickflow
  const any = (field: string) => field === '*' || field === '?';
  if (any(dom) || any(dow) || !(dom.startsWith('*') || dow.startsWith('*'))) return { cron };
  // Both must match: a field that allows every day leaves the other alone, as `*` does.
  if (dom.startsWith('*') && cronFieldValues(3, dom)?.length === 31) f[2] = '*';
  else if (dow.startsWith('*') && cronFieldValues(5, dow)?.length === 7) f[4] = '*';
  else {
    return {
      problem: `cron runs "${cron}" on days that are both day of month "${dom}" and day of week "${dow}" (a day field starting with * makes it need both), while Tickflow's cron takes either of two day fields: write one day field (a day of week such as 1#1, the first Monday, or 5L, the last Friday, may help) or test the day in the command`,
    };
  }
  return { cron: f.join(' ') };
}

/** Parses crontab text; never throws for bad lines, it reports them in `errors`. */
export function parseCrontab(text: string, options: ParseCrontabOptions = {}): { jobs: CrontabJob[]; errors: CrontabError[] } {
  const jobs: CrontabJob[] = [];
  const errors: CrontabError[] = [];
  const env: Record<string, string> = {};
  let shell = '/bin/sh';
  let timezone: string | undefined;
  let timezoneLine: number | undefined;
  let envTzLine: number | undefined;
  // an unknown zone in the last CRON_TZ line: the entries after it are reported, not imported
  let badTimezone: { zone: string; line: number } | undefined;
  // `cron.` and `cron` give the same keys (`cron.l3.backup-sh`), never `cron..l3…`
  const prefix = (options.keyPrefix ?? 'crontab').replace(/\.+$/, '') || 'crontab';
  const lines = text.split(/\r?\n/);

  lines.forEach((text, idx) => {
    const line = idx + 1;
    const trimmed = text.trim();
    if (!trimmed || trimmed.startsWith('#')) return;

    const envMatch = ENV_LINE.exec(text);
    if (envMatch) {
      const name = envMatch[1]!;
      const value = unquote(envMatch[2]!);
      if (name === 'SHELL') shell = value || '/bin/sh';
      else if (name === 'CRON_TZ') {
        if (value && !isValidTimeZone(value)) {
          // reported here, on its own line; the entries it would apply to are still read (their own fields checked)
          errors.push({ line, text, reason: `CRON_TZ: unknown time zone "${value}"; the entries after it (until the next CRON_TZ line) are not imported` });
          badTimezone = { zone: value, line };
          timezone = timezoneLine = undefined;
        } else {
          badTimezone = undefined;
          timezone = value || undefined;
          timezoneLine = timezone ? line : undefined;
        }
      } else if (name === 'TZ') envTzLine = line;
      if (!DROPPED_ENV.has(name)) env[name] = value;
      return;
    }

    let cron: string;
    let rest: string;
    if (trimmed.startsWith('@')) {
      const m = /^(@\S+)\s+(.*)$/.exec(trimmed);
      const macro = (m?.[1] ?? trimmed).toLowerCase();
      if (macro === '@reboot') {
        errors.push({ line, text, reason: '@reboot is not supported: a scheduler has no boot event; run it from your service manager instead' });
        return;
      }
      const expanded = CRON_MACROS[macro];
      if (!expanded) {
        errors.push({ line, text, reason: `unknown macro ${m?.[1] ?? trimmed}` });
        return;
      }
      if (!m) {
        errors.push({ line, text, reason: 'missing command' });
        return;
      }
      cron = expanded;
      rest = m[2]!;
    } else {
      const m = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*))?$/.exec(trimmed);
      if (!m) {
        errors.push({ line, text, reason: 'expected 5 time fields followed by a command' });
        return;
      }
      cron = m.slice(1, 6).join(' ');
      rest = m[6] ?? '';
    }

    // Every problem of the line is reported at once: one never hides another.
    const problems: string[] = [];
    const days = cronDays(cron);
    if ('problem' in days) problems.push(days.problem);
    else cron = days.cron;
    let user: string | undefined;
    if (options.system) {
      const m = /^(\S+)\s+(.*)$/.exec(rest.trim());
      if (m) {
        user = m[1]!;
        rest = m[2]!;
      } else {
        problems.push('expected a user column followed by a command (system crontab format)');
        rest = '';
      }
    }
    const { command, input } = splitPercent(rest);
    if (!command.trim() && problems.length === 0) problems.push('missing command');
    // "Trojan Source": such a command shows in one order in the console and runs in another
    const bidi = BIDI_CONTROL.exec(command);
    if (bidi) problems.push(`the command holds a bidirectional control character (U+${bidi[0].codePointAt(0)!.toString(16).toUpperCase()}): it would read in another order than the shell runs it`);
    try {
      // with an unknown CRON_TZ the fields are checked in UTC (they do not depend on the zone)
      parseCron(cron, timezone ?? 'UTC', { refuseOversizedSteps: true });
    } catch (err) {
      problems.push(`invalid schedule "${cron}"${timezone ? ` in ${timezone}` : ''}: ${(err as Error).message}`);
    }
    if (badTimezone) problems.push(`its zone is unknown: CRON_TZ=${badTimezone.zone} on line ${badTimezone.line}`);
    if (problems.length) {
      errors.push({ line, text, reason: problems.join('; ') });
      return;
    }
    const firstWord = /^(\S+)\s+\S/.exec(command.trim())?.[1];
    const userColumnLike = !options.system && firstWord && SYSTEM_ACCOUNTS.has(firstWord) ? firstWord : undefined;
    jobs.push({
      key: `${prefix}.l${line}.${slug(command)}`.slice(0, 128),
      name: jobName(command),
      cron,
      ...(timezone ? { timezone, timezoneLine } : {}),
      ...(env.TZ !== undefined ? { envTzLine } : {}),
      command: [shell, '-c', command.trim()],
      ...(input !== undefined ? { input } : {}),
      env: { ...env },
      ...(user !== undefined ? { user } : {}),
      ...(userColumnLike ? { userColumnLike } : {}),
      line,
    });
  });
  return { jobs, errors };
}
