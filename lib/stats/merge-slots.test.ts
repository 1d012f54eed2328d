import { describe, expect, it } from 'vitest';
import { mergeStatsSlots, type StatsSlotRow } from './merge-slots.ts';

const row = (date: string, handler: string, over: Partial<StatsSlotRow> = {}): StatsSlotRow => ({
  statDate: new Date(`${date}T00:00:00Z`), handler, success: 0, failure: 0, timeout: 0, deadLetter: 0,
  totalDurationMs: 0n, maxDurationMs: 0, totalLatenessMs: 0n, latenessCount: 0, durationBuckets: [], ...over,
});

describe('mergeStatsSlots', () => {
  it('adds the slots of a (day, handler), keeps others apart and keeps the order', () => {
    const merged = mergeStatsSlots([
      row('2026-11-28', 'a', { success: 2, failure: 1, totalDurationMs: 30n, maxDurationMs: 20, durationBuckets: [1, 2] }),
      row('2026-11-28', 'a', { success: 3, timeout: 1, deadLetter: 1, totalDurationMs: 5n, maxDurationMs: 50, totalLatenessMs: 7n, latenessCount: 1, durationBuckets: [0, 1, 4] }),
      row('2026-11-28', 'b', { success: 1 }),
      row('2026-11-29', 'a', { failure: 4 }),
    ]);
    expect(merged.map((r) => [r.statDate.toISOString().slice(0, 10), r.handler])).toEqual([['2026-11-28', 'a'], ['2026-11-28', 'b'], ['2026-11-29', 'a']]);
    expect(merged[0]).toMatchObject({
      success: 5, failure: 1, timeout: 1, deadLetter: 1, totalDurationMs: 35n, maxDurationMs: 50, totalLatenessMs: 7n, latenessCount: 1,
    });
    expect(merged[0]!.durationBuckets.slice(0, 3)).toEqual([1, 3, 4]);
    expect(merged[2]).toMatchObject({ failure: 4, success: 0 });
  });

  it('does not change the input rows', () => {
    const a = row('2026-11-28', 'a', { success: 1, durationBuckets: [1] });
    mergeStatsSlots([a, row('2026-11-28', 'a', { success: 1, durationBuckets: [1] })]);
    expect(a.success).toBe(1);
    expect(a.durationBuckets).toEqual([1]);
  });
});
