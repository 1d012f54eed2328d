import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nextCronFireTimes, parseCron } from './cron';
import { ScheduleError } from './errors';

type DstCase = { id: string; expr: string; tz: string; from?: string; count?: number; expect?: string[]; expectError?: boolean };

// Cases from other schedulers' bug reports (tests/fixtures/cron-dst.json) and
// clock changes that are not one hour long or happen at midnight
// (tests/fixtures/cron-dst-uneven.json: Lord Howe moves 30 minutes, Havana
// falls back at 01:00 to 00:00). Same format and rules, see docs/scheduling.md.
function loadCases(file: string): DstCase[] {
  const url = new URL(`../../tests/fixtures/${file}`, import.meta.url);
  return (JSON.parse(readFileSync(fileURLToPath(url), 'utf8')) as { cases: DstCase[] }).cases;
}
const fixtureFiles = ['cron-dst.json', 'cron-dst-uneven.json'];
const iso = (ds: Date[]) => ds.map((d) => d.toISOString().replace('.000Z', 'Z'));

function errorField(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (e instanceof ScheduleError) return e.field;
    throw e;
  }
  return undefined;
}

for (const file of fixtureFiles) {
  const cases = loadCases(file);
  describe(`${file} cases`, () => {
    it('has cases', () => expect(cases.length).toBeGreaterThan(0));
    for (const c of cases) {
      it(c.id, () => {
        if (c.expectError) {
          expect(() => parseCron(c.expr, c.tz)).toThrow(ScheduleError);
          expect(() => nextCronFireTimes(c.expr, c.tz, new Date('2026-01-01T00:00:00Z'), 1)).toThrow(ScheduleError);
        } else {
          expect(iso(nextCronFireTimes(c.expr, c.tz, new Date(c.from!), c.count!))).toEqual(c.expect);
        }
      });
    }
  });
}

describe('clock changes that are not one hour long', () => {
  it('Lord Howe spring-forward: */5 keeps firing after the 30-minute gap (02:00 -> 02:30)', () => {
    expect(iso(nextCronFireTimes('*/5 * * * *', 'Australia/Lord_Howe', new Date('2026-10-03T15:20:00Z'), 4))).toEqual([
      '2026-10-03T15:25:00Z', // 01:55 +10:30
      '2026-10-03T15:30:00Z', // 02:30 +11:00 (02:00-02:25 shifted by 30 minutes land on real times)
      '2026-10-03T15:35:00Z',
      '2026-10-03T15:40:00Z',
    ]);
  });
  it('Lord Howe spring-forward: 0 2 * * * fires on the change day, at 02:30', () => {
    expect(iso(nextCronFireTimes('0 2 * * *', 'Australia/Lord_Howe', new Date('2026-10-02T12:00:00Z'), 3))).toEqual([
      '2026-10-02T15:30:00Z', // 02:00 +10:30
      '2026-10-03T15:30:00Z', // 02:00 does not exist: 02:30 +11:00
      '2026-10-04T15:00:00Z', // 02:00 +11:00
    ]);
  });
  it('Lord Howe spring-forward: 0 * * * * fires at 02:30 for the missing 02:00', () => {
    expect(iso(nextCronFireTimes('0 * * * *', 'Australia/Lord_Howe', new Date('2026-10-03T14:00:00Z'), 3))).toEqual([
      '2026-10-03T14:30:00Z', // 01:00 +10:30
      '2026-10-03T15:30:00Z', // 02:30 +11:00
      '2026-10-03T16:00:00Z', // 03:00 +11:00
    ]);
  });
  it('Lord Howe fall-back: a fixed time in the repeated half hour fires once; from inside the repeat the second pass of */15 still fires', () => {
    expect(iso(nextCronFireTimes('45 1 * * *', 'Australia/Lord_Howe', new Date('2026-04-04T12:00:00Z'), 2))).toEqual([
      '2026-04-04T14:45:00Z', // 01:45 +11:00, not 15:15Z (01:45 +10:30)
      '2026-04-05T15:15:00Z',
    ]);
    // From 14:50Z (01:50, first pass) the next quarter hours are the second pass's 01:30 and 01:45.
    expect(iso(nextCronFireTimes('*/15 * * * *', 'Australia/Lord_Howe', new Date('2026-04-04T14:50:00Z'), 3))).toEqual([
      '2026-04-04T15:00:00Z',
      '2026-04-04T15:15:00Z',
      '2026-04-04T15:30:00Z',
    ]);
  });
  it('Havana midnight fall-back: 0 0 fires at the first midnight, * * at both', () => {
    expect(iso(nextCronFireTimes('0 0 * * *', 'America/Havana', new Date('2024-11-02T12:00:00Z'), 2))).toEqual([
      '2024-11-03T04:00:00Z',
      '2024-11-04T05:00:00Z',
    ]);
    expect(iso(nextCronFireTimes('30 * * * *', 'America/Havana', new Date('2024-11-03T04:00:00Z'), 3))).toEqual([
      '2024-11-03T04:30:00Z', // 00:30 -04:00
      '2024-11-03T05:30:00Z', // 00:30 -05:00 again
      '2024-11-03T06:30:00Z', // 01:30 -05:00
    ]);
  });
  it('a fall-back started from inside the second pass does not repeat the first pass', () => {
    expect(iso(nextCronFireTimes('*/15 * * * *', 'America/New_York', new Date('2026-11-01T06:20:00Z'), 2))).toEqual([
      '2026-11-01T06:30:00Z',
      '2026-11-01T06:45:00Z',
    ]);
  });
  it('Apia skipped 30 December 2011: 0 12 * * * fires once, at noon on the 31st', () => {
    expect(iso(nextCronFireTimes('0 12 * * *', 'Pacific/Apia', new Date('2011-12-29T12:00:00Z'), 2))).toEqual([
      '2011-12-29T22:00:00Z', // 29 Dec 12:00 -10:00
      '2011-12-30T22:00:00Z', // 31 Dec 12:00 +14:00 (30 Dec 12:00 shifted by 24 h lands on it)
    ]);
  });
});

describe('expressions whose every wall time falls on a clock change', () => {
  // No wall time outside a change comes to release the fire times held next to one: given out all the same.
  it.each([
    ['30 2 * 3 0L', 'Europe/Berlin', '2026-01-01T00:00:00Z', ['2026-03-29T01:30:00Z', '2027-03-28T01:30:00Z', '2028-03-26T01:30:00Z']], // gap: 03:30 CEST
    ['30 2 * 3 0#2', 'America/New_York', '2027-03-15T00:00:00Z', ['2028-03-12T07:30:00Z', '2029-03-11T07:30:00Z', '2030-03-10T07:30:00Z']], // gap: 03:30 EDT
    ['30 1 * 11 0#1', 'America/New_York', '2026-01-01T00:00:00Z', ['2026-11-01T05:30:00Z', '2027-11-07T05:30:00Z', '2028-11-05T05:30:00Z']], // repeat: first, EDT
    ['15 2 ? 10 SUN#1', 'Australia/Lord_Howe', '2026-01-01T00:00:00Z', ['2026-10-03T15:45:00Z', '2027-10-02T15:45:00Z', '2028-09-30T15:45:00Z']], // 30-minute gap
    ['30 2 ? 3 SUN#2', 'America/New_York', '2027-01-01T00:00:00Z', ['2027-03-14T07:30:00Z', '2028-03-12T07:30:00Z', '2029-03-11T07:30:00Z']],
  ])('%s in %s from %s', (expr, tz, from, expected) => {
    expect(iso(nextCronFireTimes(expr, tz, new Date(from), 3))).toEqual(expected);
  });
});

describe('errors', () => {
  it('bad zone is a timezone field error, never-fires is a cron field error', () => {
    expect(errorField(() => parseCron('0 * * * *', 'Mars/Olympus_Mons'))).toBe('timezone');
    expect(errorField(() => parseCron('0 0 31 4 *', 'UTC'))).toBe('cron');
  });

  it('names every field out of range, in plain words, not only the first', () => {
    expect(() => parseCron('61 25 * * *', 'UTC')).toThrow('minute "61": 61 is outside 0-59; hour "25": 25 is outside 0-23');
    expect(() => parseCron('0 0 32 13 *', 'UTC')).toThrow('day of month "32": 32 is outside 1-31; month "13": 13 is outside 1-12');
    expect(() => parseCron('0 5-70 * * *', 'UTC')).toThrow('hour "5-70": range 5-70 is outside 0-23');
    // six fields: the first is the second, and the message says how six fields are read
    expect(() => parseCron('75 0 0 * * *', 'UTC')).toThrow(/second "75": 75 is outside 0-59 \(6 fields read as: second minute hour/);
  });

  // the message after the expression's quote: every problem, in order
  const problems = (expr: string) => {
    try {
      parseCron(expr, 'UTC', { refuseOversizedSteps: true });
    } catch (e) {
      return (e as Error).message.slice(`Invalid cron expression "${expr}": `.length);
    }
    throw new Error(`${expr} parsed`);
  };

  it('names a bad W day, year or H beside the other bad fields, in field order and the same words', () => {
    expect(problems('61 * 32W * *')).toBe('minute "61": 61 is outside 0-59; day of month "32W": 32 is outside 1-31');
    expect(problems('0 61 * * * * 1900')).toBe(
      'minute "61": 61 is outside 0-59; year "1900": 1900 is outside 1970-2199 (7 fields read as: second minute hour day-of-month month day-of-week year)',
    );
    expect(problems('0 0 25 1,2W * * 2030-2300')).toMatch(/^hour "25": 25 is outside 0-23; day of month "1,2W": 'W' must be a single day such as 15W or LW; year "2030-2300": range 2030-2300 is outside 1970-2199 \(/);
    expect(problems('61 H * * *')).toBe(`minute "61": 61 is outside 0-59; hour "H": 'H' (hashed) values are not supported; use the job's stagger instead`);
    expect(problems('0 0 0 * * * x')).toMatch(/^year "x": x is not a year/);
  });

  it("says what is wrong in plain words, never in cron-parser's own (every message cron-parser gives a field)", () => {
    expect(problems('0 0 * * MON-')).toBe('day of week "MON-": a range needs a start and an end, such as 1-5');
    expect(problems('0 0 * * -1')).toBe('day of week "-1": a range needs a start and an end, such as 1-5');
    expect(problems('0 0 L-3 * *')).toBe('day of month "L-3": L-n (n days before the last) is not supported; use L for the last day');
    expect(problems('5-2 * * * *')).toBe('minute "5-2": range 5-2 runs backwards: write the smaller number first');
    expect(problems('*/0 * * * *')).toBe('minute "*/0": a step (/n) must be a whole number of at least 1, such as */5');
    expect(problems('0 0 1/ * *')).toBe('day of month "1/": a step (/n) must be a whole number of at least 1, such as */5');
    expect(problems('0 0 * * FOO')).toBe('day of week "FOO": "FOO" is not a day name (SUN-SAT)');
    expect(problems('0 0 * JANX *')).toBe('month "JANX": only digits, names and * , - / may appear here');
    expect(problems('1.5 * * * *')).toBe('minute "1.5": only digits and * , - / may appear here');
    expect(problems('0 0 1-a * *')).toBe('day of month "1-a": only digits and * , - / ? L W may appear here');
    expect(problems('0 0 * * 5#6')).toBe('day of week "5#6": # needs the week of the month after it, 1-5, such as 5#2 (the second Friday)');
    expect(problems('0 0 * * 1,,2')).toBe('day of week "1,,2": a list has an empty item: write values between commas, such as 1,15');
    expect(problems('0 0 * * 1#2,3#1')).toBe('day of week "1#2,3#1": # (the nth weekday) cannot be combined with ",": write one day and week, such as 5#2');
    expect(problems('0 0 * * L')).toBe('day of week "L": L alone is not a day of week: write the day before it, such as 5L (the last Friday)');
    expect(problems('0 0 * * 5L,5L')).toBe('day of week "5L,5L": 5L is listed twice');
    for (const expr of ['a b c d e', '0 0 * * 1#', '0 0 * * ,1', '0 0 * * 1/x', '60-70 * * * *', '0 0 * * 7-1', '0 0 * * 1#1-2', '0 0 L,L * *']) {
      expect(problems(expr)).not.toMatch(/Constraint error|Validation error|Invalid (characters|range|list)|NaN|got value/);
    }
  });

  it('refuses a step larger than what it steps through in every field, in the same words (cron-parser would keep only the first value)', () => {
    expect(problems('*/99999999999 * * * *')).toBe('minute "*/99999999999": step 99999999999 must be between 1 and 60 (the 60 values of 0-59)');
    expect(problems('0-30/45 * * * *')).toBe('minute "0-30/45": step 45 must be between 1 and 31 (the 31 values of 0-30)');
    expect(problems('5/56 * * * *')).toBe('minute "5/56": step 56 must be between 1 and 55 (the 55 values of 5-59)');
    expect(problems('*/61 0 0 * * *')).toMatch(/^second "\*\/61": step 61 must be between 1 and 60 \(the 60 values of 0-59\) \(6 fields/);
    expect(problems('0 */25 * * *')).toBe('hour "*/25": step 25 must be between 1 and 24 (the 24 values of 0-23)');
    expect(problems('0 0 */32 * *')).toBe('day of month "*/32": step 32 must be between 1 and 31 (the 31 values of 1-31)');
    expect(problems('0 0 1 */13 *')).toBe('month "*/13": step 13 must be between 1 and 12 (the 12 values of 1-12)');
    expect(problems('0 0 * JAN-MAR/4 *')).toBe('month "JAN-MAR/4": step 4 must be between 1 and 3 (the 3 values of 1-3)');
    expect(problems('0 0 * * */8')).toBe('day of week "*/8": step 8 must be between 1 and 7 (the 7 values of 0-6)');
    expect(problems('0 0 * * 1,MON-FRI/6')).toBe('day of week "1,MON-FRI/6": step 6 must be between 1 and 5 (the 5 values of 1-5)');
    expect(problems('0 0 0 * * * 2030-2031/3')).toMatch(/^year "2030-2031\/3": step 3 must be between 1 and 2 \(the 2 values of 2030-2031\)/);
    // beside the other bad fields, in field order
    expect(problems('*/70 25 * * *')).toBe('minute "*/70": step 70 must be between 1 and 60 (the 60 values of 0-59); hour "25": 25 is outside 0-23');
    // a step up to the number of values is fine
    for (const ok of ['*/60 * * * *', '0-30/31 * * * *', '0 */24 * * *', '0 0 */31 * *', '0 0 1 */12 *', '0 0 * * */7', '0 0 * * MON-FRI/5', '0 0 0 * * * */230']) {
      expect(() => parseCron(ok, 'UTC', { refuseOversizedSteps: true }), ok).not.toThrow();
    }
  });

  it('reads a stored schedule with an oversized step as before (the rule is for saving): the tick keeps firing it', () => {
    // cron-parser's reading: the field's first value alone
    expect(nextCronFireTimes('0 0 */40 * *', 'UTC', new Date('2026-01-05T00:00:00Z'), 2).map((d) => d.toISOString())).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    expect(() => parseCron('0 0 */40 * *', 'UTC', { refuseOversizedSteps: true })).toThrow(/day of month "\*\/40": step 40 must be between 1 and 31/);
  });

  it('names a clash between fields after the fields bad on their own', () => {
    expect(problems('61 * 15W * 1')).toBe('minute "61": 61 is outside 0-59; day of month "15W": \'W\' needs day of week \'*\' or \'?\', got "1"');
    expect(problems('61 * 31 2 *')).toBe('minute "61": 61 is outside 0-59; day of month "31" never occurs in month "2"');
    expect(problems('0 0 31 4,6 *')).toBe('day of month "31" never occurs in month "4,6"');
    // a field bad on its own is not also a clash: 32 is outside 1-31, not "never in February"
    expect(problems('0 0 32 2 *')).toBe('day of month "32": 32 is outside 1-31');
  });
});

describe('cron syntax', () => {
  const from = new Date('2024-01-01T00:00:00Z');
  const table: [string, string, number, string[]][] = [
    ['@yearly', 'UTC', 2, ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z']],
    ['@annually', 'UTC', 1, ['2025-01-01T00:00:00Z']],
    ['@monthly', 'UTC', 2, ['2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z']],
    ['@weekly', 'UTC', 2, ['2024-01-07T00:00:00Z', '2024-01-14T00:00:00Z']],
    ['@daily', 'UTC', 1, ['2024-01-02T00:00:00Z']],
    ['@midnight', 'Asia/Shanghai', 2, ['2024-01-01T16:00:00Z', '2024-01-02T16:00:00Z']],
    ['@hourly', 'UTC', 2, ['2024-01-01T01:00:00Z', '2024-01-01T02:00:00Z']],
    ['30 */20 * * * *', 'UTC', 3, ['2024-01-01T00:00:30Z', '2024-01-01T00:20:30Z', '2024-01-01T00:40:30Z']],
    ['0 0 L * *', 'UTC', 3, ['2024-01-31T00:00:00Z', '2024-02-29T00:00:00Z', '2024-03-31T00:00:00Z']],
    ['0 0 * * 5L', 'UTC', 2, ['2024-01-26T00:00:00Z', '2024-02-23T00:00:00Z']],
    // Jan 1 2024 is the first Monday but equals `from`, which is exclusive.
    ['0 0 * * 1#1', 'UTC', 2, ['2024-02-05T00:00:00Z', '2024-03-04T00:00:00Z']],
    ['0 0 ? * MON', 'UTC', 1, ['2024-01-08T00:00:00Z']],
    // 15th 2024: Jun 15 is a Saturday -> Friday 14th.
    ['0 0 15W * ?', 'UTC', 6, ['2024-01-15', '2024-02-15', '2024-03-15', '2024-04-15', '2024-05-15', '2024-06-14'].map((d) => `${d}T00:00:00Z`)],
    // 1W never crosses into the previous month: Jun 1 2024 is a Saturday -> Monday 3rd.
    ['0 0 1W 6 ?', 'UTC', 2, ['2024-06-03T00:00:00Z', '2025-06-02T00:00:00Z']],
    ['0 0 LW * ?', 'UTC', 3, ['2024-01-31T00:00:00Z', '2024-02-29T00:00:00Z', '2024-03-29T00:00:00Z']],
    ['0 9 LW 2 ?', 'America/New_York', 3, ['2024-02-29T14:00:00Z', '2025-02-28T14:00:00Z', '2026-02-27T14:00:00Z']],
    ['0 0 0 1 1 ? 2025-2026', 'UTC', 5, ['2025-01-01T00:00:00Z', '2026-01-01T00:00:00Z']],
    ['0 0 0 1 1 ? 2020', 'UTC', 5, []],
  ];
  for (const [expr, tz, count, expected] of table) {
    it(`${expr} @ ${tz}`, () => expect(iso(nextCronFireTimes(expr, tz, from, count))).toEqual(expected));
  }

  it('from is exclusive, also with milliseconds', () => {
    expect(iso(nextCronFireTimes('0 * * * *', 'UTC', new Date('2024-01-01T01:00:00.000Z'), 1))).toEqual(['2024-01-01T02:00:00Z']);
    expect(iso(nextCronFireTimes('0 * * * *', 'UTC', new Date('2024-01-01T00:59:59.999Z'), 1))).toEqual(['2024-01-01T01:00:00Z']);
  });

  const rejected: [string, string, string][] = [
    ['', 'UTC', 'cron'],
    ['* * * *', 'UTC', 'cron'],
    ['0 0 0 1 1 * 2030 9', 'UTC', 'cron'],
    ['61 * * * *', 'UTC', 'cron'],
    ['@reboot', 'UTC', 'cron'],
    ['H * * * *', 'UTC', 'cron'],
    ['0 0 31W 2 ?', 'UTC', 'cron'],
    ['0 0 15W * 1', 'UTC', 'cron'],
    ['0 0 0 29 2 ? 2025', 'UTC', 'cron'],
    ['0 0 30 2 *', 'UTC', 'cron'],
    ['0 * * * *', '', 'timezone'],
    ['0 * * * *', '+05:00', 'timezone'],
  ];
  for (const [expr, tz, field] of rejected) {
    it(`rejects ${JSON.stringify(expr)} @ ${JSON.stringify(tz)} as ${field}`, () => {
      expect(errorField(() => parseCron(expr, tz))).toBe(field);
    });
  }

  it('rejects bad from and count', () => {
    expect(errorField(() => nextCronFireTimes('* * * * *', 'UTC', new Date(Number.NaN), 1))).toBe('from');
    expect(errorField(() => nextCronFireTimes('* * * * *', 'UTC', from, -1))).toBe('count');
  });

  it('does not depend on the host TZ (suite is run under TZ=UTC, America/New_York, Australia/Sydney)', () => {
    expect(iso(nextCronFireTimes('0 2 * * *', 'America/New_York', new Date('2026-03-07T00:00:00Z'), 1))).toEqual(['2026-03-07T07:00:00Z']);
  });
});

describe('lists whose items overlap', () => {
  // Vixie cron, cronie (a bit set per field) and Quartz take them; cron-parser refused "duplicate values found"
  it.each([
    ['*/15,30 * * * *', '*/15 * * * *'],
    ['0 1-5,3 * * *', '0 1-5 * * *'],
    ['0,30,0 * * * *', '0,30 * * * *'],
    ['0 0 1-10,5-15 * *', '0 0 1-15 * *'],
    ['0 0 * jan,JAN,1 *', '0 0 * 1 *'],
    ['0 0 * * 0,7', '0 0 * * 0'], // 0 and 7 are both Sunday
    ['0 0 * * SUN,6,7', '0 0 * * 0,6'],
    ['0 0 * * 1-5,3', '0 0 * * 1-5'],
    ['0 0 1,15 * 1,MON', '0 0 1,15 * 1'], // still either day (the day rule of two restricted fields)
    ['0,0 0 0 * * *', '0 0 0 * * *'],
  ])('%s fires as %s', (expr, same) => {
    const from = new Date('2026-01-01T00:00:00Z');
    expect(iso(nextCronFireTimes(expr, 'Europe/Berlin', from, 12))).toEqual(iso(nextCronFireTimes(same, 'Europe/Berlin', from, 12)));
  });

  it('keeps the fall-back rule of the fields as written: a step in the list fires at both occurrences, fixed values at the first', () => {
    // New York falls back at 02:00 EDT to 01:00 EST on 2026-11-01: 01:00-01:59 happen twice
    const from = new Date('2026-11-01T04:00:00Z');
    expect(iso(nextCronFireTimes('*/30,30 1 * * *', 'America/New_York', from, 4))).toEqual(['2026-11-01T05:00:00Z', '2026-11-01T05:30:00Z', '2026-11-01T06:00:00Z', '2026-11-01T06:30:00Z']);
    expect(iso(nextCronFireTimes('0,30,0 1 * * *', 'America/New_York', from, 3))).toEqual(['2026-11-01T05:00:00Z', '2026-11-01T05:30:00Z', '2026-11-02T06:00:00Z']);
  });

  it('saves with the oversized-step rule too, and a bad item is still named', () => {
    expect(() => parseCron('*/15,30 * * * *', 'UTC', { refuseOversizedSteps: true })).not.toThrow();
    expect(() => parseCron('61,1,1 * * * *', 'UTC')).toThrow('minute "61,1,1": 61 is outside 0-59');
  });
});

describe('parse cache', () => {
  it('one parse per (expression, zone): the same result again, another zone or expression parsed on its own', () => {
    const a = parseCron('*/5 * * * * *', 'UTC');
    expect(parseCron('*/5 * * * * *', 'UTC')).toBe(a);
    const b = parseCron('*/5 * * * * *', 'Europe/Berlin');
    expect(b).not.toBe(a);
    expect(b.timezone).toBe('Europe/Berlin');
    expect(parseCron('*/10 * * * * *', 'UTC')).not.toBe(a);
    // fire times from the cached parse are those of a fresh one
    expect(nextCronFireTimes('*/5 * * * * *', 'UTC', new Date('2026-03-01T10:00:01Z'), 2).map((d) => d.toISOString()))
      .toEqual(['2026-03-01T10:00:05.000Z', '2026-03-01T10:00:10.000Z']);
  });

  it('a failure is not cached: every call throws', () => {
    for (let i = 0; i < 2; i++) {
      expect(() => parseCron('0 0 31 4 *', 'UTC')).toThrow(ScheduleError);
      expect(() => parseCron('* * * * *', 'Mars/Olympus')).toThrow(ScheduleError);
    }
  });
});
