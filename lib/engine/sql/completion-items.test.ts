import { describe, expect, it } from 'vitest';
import { completionItemsParam, itemsRowLimit } from './completion-items.ts';

describe('itemsRowLimit: the batch size rounded up to a power of two', () => {
  it('never cuts a batch, and makes few statement texts', () => {
    expect([1, 2, 3, 4, 5, 63, 64, 65, 1000].map(itemsRowLimit)).toEqual([1, 2, 4, 4, 8, 64, 64, 128, 1024]);
    expect(itemsRowLimit(0)).toBe(1);
  });
});

describe('completionItemsParam', () => {
  it('carries the slot as ISO text, or null when the caller did not pass it', () => {
    const rows = JSON.parse(completionItemsParam([
      { taskId: 'a', attempt: 1, scheduledFor: new Date('2027-02-08T00:00:00.000Z'), output: null, error: null, exitCode: null },
      { taskId: 'b', attempt: 2, scheduledFor: null, output: undefined, error: 'x', exitCode: 3 },
    ])) as Record<string, unknown>[];
    expect(rows).toEqual([
      { id: 'a', attempt: 1, scheduled_for: '2027-02-08T00:00:00.000Z', output: 'null', error: null, exit_code: null },
      { id: 'b', attempt: 2, scheduled_for: null, error: 'x', exit_code: 3 },
    ]);
  });
});
