import { describe, expect, it } from 'vitest';
import { FIRE_GRACE_MS, JOBS_REFRESH_MAX_MS, JOBS_REFRESH_MIN_MS, jobsRefreshDelay, keepShownSelection } from './jobs-refresh';

const now = Date.parse('2026-12-07T09:40:00Z');
const at = (s: number) => new Date(now + s * 1000).toISOString();

describe('jobsRefreshDelay (the jobs list re-reads itself after a shown job fires)', () => {
  it('re-reads a grace after the soonest coming next fire', () => {
    expect(jobsRefreshDelay([at(120), at(20), null, at(60)], now)).toBe(20_000 + FIRE_GRACE_MS);
  });
  it('a fire just passed (inside the grace) is still waited for', () => {
    expect(jobsRefreshDelay([at(-1)], now)).toBe(JOBS_REFRESH_MIN_MS);
  });
  it('no fire coming, or only fires long past (a late tick): the longest interval', () => {
    expect(jobsRefreshDelay([], now)).toBe(JOBS_REFRESH_MAX_MS);
    expect(jobsRefreshDelay([null, at(-600)], now)).toBe(JOBS_REFRESH_MAX_MS);
    expect(jobsRefreshDelay([at(3600)], now)).toBe(JOBS_REFRESH_MAX_MS);
  });
  it('never sooner than the shortest wait, for jobs firing every second', () => {
    expect(jobsRefreshDelay([at(0.5)], now)).toBe(JOBS_REFRESH_MIN_MS);
  });
});

describe('keepShownSelection (a refresh keeps the bulk selection)', () => {
  it('keeps the selected rows still shown, and the same set when none went', () => {
    const s = new Set(['a', 'b']);
    expect(keepShownSelection(s, ['a', 'b', 'c'])).toBe(s);
    expect([...keepShownSelection(s, ['b', 'c'])]).toEqual(['b']);
    expect(keepShownSelection(new Set(), ['a']).size).toBe(0);
  });
});
