import { describe, expect, it } from 'vitest';
import { itemsRowLimit, itemsWeekFloor } from './completion-items.ts';

describe('itemsRowLimit: the batch size rounded up to a power of two', () => {
  it('never cuts a batch, and makes few statement texts', () => {
    expect([1, 2, 3, 4, 5, 63, 64, 65, 1000].map(itemsRowLimit)).toEqual([1, 2, 4, 4, 8, 64, 64, 128, 1024]);
    expect(itemsRowLimit(0)).toBe(1);
  });
});

describe('itemsWeekFloor: the least week of a batch (the floor of weekFloorSql)', () => {
  const item = (iso: string) => ({ taskId: 't', runId: 'r', jobId: 'j', scheduledFor: new Date(iso), attempt: 1, output: null, error: null, exitCode: null });
  it('is the earliest scheduled_for, wherever it is in the batch', () => {
    expect(itemsWeekFloor([item('2026-12-03T10:00:00Z'), item('2026-11-20T00:00:00Z'), item('2026-12-01T00:00:00Z')]).toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(itemsWeekFloor([item('2026-12-03T10:00:00Z')]).toISOString()).toBe('2026-12-03T10:00:00.000Z');
  });
  it('refuses an empty batch', () => {
    expect(() => itemsWeekFloor([])).toThrow(/empty batch/);
  });
});
