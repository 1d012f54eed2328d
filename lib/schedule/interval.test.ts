import { describe, expect, it } from 'vitest';
import { ScheduleError } from './errors';
import { nextIntervalFireTime } from './interval';

const d = (s: string) => new Date(s);

describe('nextIntervalFireTime', () => {
  const anchor = d('2026-01-01T00:00:00Z');
  const table: [string, number, string, string][] = [
    ['before anchor -> anchor', 60, '2025-12-31T23:00:00Z', '2026-01-01T00:00:00Z'],
    ['at anchor -> next slot (strictly after)', 60, '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z'],
    ['mid-slot', 60, '2026-01-01T00:00:30Z', '2026-01-01T00:01:00Z'],
    ['exactly on slot k', 60, '2026-01-01T00:05:00Z', '2026-01-01T00:06:00Z'],
    ['late run does not drift the grid', 3600, '2026-01-01T05:59:59.999Z', '2026-01-01T06:00:00Z'],
    ['long gap', 90, '2026-01-02T00:00:01Z', '2026-01-02T00:01:30Z'],
  ];
  for (const [name, sec, after, expected] of table) {
    it(name, () => expect(nextIntervalFireTime(anchor, sec, d(after)).toISOString()).toBe(d(expected).toISOString()));
  }
  it('rejects non-positive or fractional intervals', () => {
    for (const bad of [0, -5, 1.5, Number.NaN]) {
      expect(() => nextIntervalFireTime(anchor, bad, anchor)).toThrow(ScheduleError);
    }
  });
});
