import { describe, expect, it } from 'vitest';
import { ScheduleError } from './errors';
import { previewFireTimes } from './preview';

const from = new Date('2026-03-07T00:00:00Z');
describe('previewFireTimes', () => {
  it('cron', () => {
    expect(previewFireTimes({ kind: 'cron', cron: '0 2 * * *', timezone: 'America/New_York' }, from, 3).map((x) => x.toISOString())).toEqual([
      '2026-03-07T07:00:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:00:00.000Z',
    ]);
  });
  it('interval anchored at from', () => {
    expect(previewFireTimes({ kind: 'interval', intervalSeconds: 90 }, from, 2).map((x) => x.toISOString())).toEqual([
      '2026-03-07T00:01:30.000Z',
      '2026-03-07T00:03:00.000Z',
    ]);
  });
  it('once and manual', () => {
    expect(previewFireTimes({ kind: 'once', runAt: new Date('2026-03-08T00:00:00Z') }, from, 5)).toHaveLength(1);
    expect(previewFireTimes({ kind: 'once', runAt: new Date('2026-03-01T00:00:00Z') }, from, 5)).toHaveLength(0);
    expect(previewFireTimes({ kind: 'manual' }, from, 5)).toEqual([]);
  });
  it('respects window', () => {
    const r = previewFireTimes({ kind: 'cron', cron: '@daily', timezone: 'UTC' }, from, 50, { endAt: new Date('2026-03-10T00:00:00Z') });
    expect(r).toHaveLength(3);
  });
  it.each([0, 51, 1.5, -1, Number.NaN])('count %s -> ScheduleError(count)', (count) => {
    expect(() => previewFireTimes({ kind: 'manual' }, from, count)).toThrow(ScheduleError);
    try {
      previewFireTimes({ kind: 'manual' }, from, count);
    } catch (e) {
      expect((e as ScheduleError).field).toBe('count');
    }
  });
  it('count bounds 1 and 50 are accepted', () => {
    expect(previewFireTimes({ kind: 'cron', cron: '* * * * * *', timezone: 'UTC' }, from, 1)).toHaveLength(1);
    expect(previewFireTimes({ kind: 'cron', cron: '* * * * * *', timezone: 'UTC' }, from, 50)).toHaveLength(50);
  });
  it('stops at the last instant Tickflow accepts (no year 10000)', () => {
    const r = previewFireTimes({ kind: 'cron', cron: '0 0 * * *', timezone: 'UTC' }, new Date('9999-12-29T12:00:00Z'), 5);
    expect(r.map((d) => d.toISOString())).toEqual(['9999-12-30T00:00:00.000Z', '9999-12-31T00:00:00.000Z']);
  });
  it('looks at most 100 years ahead: a schedule firing once in decades gives what falls inside', () => {
    // The fifth Monday of February: only in a leap year whose February starts on a Monday.
    const r = previewFireTimes({ kind: 'cron', cron: '0 0 0 ? 2 1#5', timezone: 'UTC' }, from, 50);
    expect(r.map((d) => d.toISOString())).toEqual(['2044-02-29T00:00:00.000Z', '2072-02-29T00:00:00.000Z', '2112-02-29T00:00:00.000Z']);
    // Leap days: 24 of them in the 100 years (2100 is not a leap year), none after.
    const leap = previewFireTimes({ kind: 'cron', cron: '0 0 29 2 *', timezone: 'UTC' }, from, 50);
    expect(leap).toHaveLength(24);
    expect(leap.at(-1)!.toISOString()).toBe('2124-02-29T00:00:00.000Z');
    // The horizon is `from` + 100 years exactly: a fire at that instant is in, one a second later is not.
    expect(previewFireTimes({ kind: 'cron', cron: '0 0 0 7 3 ? 2126', timezone: 'UTC' }, from, 5).map((d) => d.toISOString())).toEqual(['2126-03-07T00:00:00.000Z']);
    expect(previewFireTimes({ kind: 'cron', cron: '1 0 0 7 3 ? 2126', timezone: 'UTC' }, from, 5)).toEqual([]);
  });
});
