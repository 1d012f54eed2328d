import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nextCronFireTimes, parseCron } from './cron';
import { ScheduleError } from './errors';

type DstCase = { id: string; expr: string; tz: string; from?: string; count?: number; expect?: string[]; expectError?: boolean };

// The design's cases (shared/cases/cron-dst.json) are kept in the repo so a
// fresh clone runs them; when the design folder sits beside the repo (CI),
// the copy must still match it.
const repoCopyUrl = new URL('../../tests/fixtures/cron-dst.json', import.meta.url);
const designUrl = new URL('../../../shared/cases/cron-dst.json', import.meta.url);
function loadCases(): DstCase[] {
  return (JSON.parse(readFileSync(fileURLToPath(repoCopyUrl), 'utf8')) as { cases: DstCase[] }).cases;
}
const cases = loadCases();
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

describe('cron-dst.json cases', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThan(0));
  it('matches the design folder\'s copy when it is present', () => {
    const design = fileURLToPath(designUrl);
    if (!existsSync(design)) return;
    expect(JSON.parse(readFileSync(design, 'utf8'))).toEqual(JSON.parse(readFileSync(fileURLToPath(repoCopyUrl), 'utf8')));
  });
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
  it('bad zone is a timezone field error, never-fires is a cron field error', () => {
    expect(errorField(() => parseCron('0 * * * *', 'Mars/Olympus_Mons'))).toBe('timezone');
    expect(errorField(() => parseCron('0 0 31 4 *', 'UTC'))).toBe('cron');
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
