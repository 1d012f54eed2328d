import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { staggerOffsetMs } from './stagger';

describe('staggerOffsetMs', () => {
  it('is 0 without stagger', () => expect(staggerOffsetMs('job-1', 0)).toBe(0));
  it('is stable and matches sha256 first 4 bytes mod window', () => {
    const id = '6f1c7c2e-2b1e-4a55-9d0e-0d7f5b1f4b11';
    const expected = createHash('sha256').update(id).digest().readUInt32BE(0) % 30_000;
    expect(staggerOffsetMs(id, 30)).toBe(expected);
    expect(staggerOffsetMs(id, 30)).toBe(staggerOffsetMs(id, 30));
  });
  it('stays in [0, stagger*1000) and spreads ids', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const v = staggerOffsetMs(`job-${i}`, 10);
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThan(10_000);
      expect(Number.isInteger(v)).toBe(true);
      seen.add(Math.floor(v / 1000));
    }
    expect(seen.size).toBe(10);
  });
  it('rejects negative stagger', () => expect(() => staggerOffsetMs('x', -1)).toThrow(RangeError));
});
