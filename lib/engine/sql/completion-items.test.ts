import { describe, expect, it } from 'vitest';
import { itemsRowLimit } from './completion-items.ts';

describe('itemsRowLimit: the batch size rounded up to a power of two', () => {
  it('never cuts a batch, and makes few statement texts', () => {
    expect([1, 2, 3, 4, 5, 63, 64, 65, 1000].map(itemsRowLimit)).toEqual([1, 2, 4, 4, 8, 64, 64, 128, 1024]);
    expect(itemsRowLimit(0)).toBe(1);
  });
});
