import { describe, expect, it } from 'vitest';
import { calendarDayText, dayOutcome } from './calendar-day.ts';

const day = (runs: number, succeeded: number, failed: number, active = 0) => ({ date: '2026-03-02', runs, succeeded, failed, active });

describe('job calendar day', () => {
  it('colours by successes and failures; the words account for every run', () => {
    expect(dayOutcome(undefined)).toBe('none');
    expect(dayOutcome(day(3, 2, 1))).toBe('mixed');
    expect(dayOutcome(day(2, 0, 2))).toBe('failed');
    expect(dayOutcome(day(2, 0, 0, 1))).toBe('other');
    // a success beside a cancelled run and one in progress: green ("none failed"), and the tooltip says what else there was
    expect(dayOutcome(day(3, 1, 0, 1))).toBe('success');
    expect(calendarDayText('Mar 2, 2026', day(3, 1, 0, 1))).toBe('Mar 2, 2026: 3 runs, 1 succeeded, 0 failed, 1 in progress, 1 cancelled or skipped');
    expect(calendarDayText('Mar 2, 2026', day(2, 1, 1))).toBe('Mar 2, 2026: 2 runs, 1 succeeded, 1 failed');
    expect(calendarDayText('Mar 3, 2026', undefined)).toBe('Mar 3, 2026: 0 runs, 0 succeeded, 0 failed');
    expect(calendarDayText('Mar 4, 2026', day(1, 0, 0))).toBe('Mar 4, 2026: 1 run, 0 succeeded, 0 failed, 1 cancelled or skipped');
  });
});
