import { describe, expect, it } from 'vitest';
import { estimatePercentile, sumBuckets } from './percentiles.ts';
import { DURATION_BUCKET_COUNT } from '../engine/stats.ts';

const b = (entries: Record<number, number>) => Array.from({ length: DURATION_BUCKET_COUNT }, (_, i) => entries[i] ?? 0);

describe('estimatePercentile (bounds 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000 ms)', () => {
  it.each([
    ['empty histogram', b({}), 0.5, undefined, null],
    ['one sample in [0,10): p50 = half way', b({ 0: 1 }), 0.5, undefined, 5],
    ['one sample clamped to the observed max', b({ 3: 1 }), 0.5, 120, 120],
    ['uniform across [100,250)', b({ 3: 10 }), 0.5, 249, 175],
    ['p95 in the upper bucket', b({ 0: 95, 6: 5 }), 0.95, 2400, 10],
    ['p95 just past the first bucket', b({ 0: 90, 6: 10 }), 0.95, 2400, 1750],
    ['open-ended last bucket uses the max', b({ 12: 2 }), 0.5, 500_000, 400_000],
    ['p100 is the max', b({ 2: 3, 4: 1 }), 1, 480, 480],
  ])('%s', (_name, buckets, p, max, expected) => {
    expect(estimatePercentile(buckets, p, max)).toBe(expected);
  });

  it('sumBuckets pads short and empty arrays', () => {
    expect(sumBuckets([[1, 2], [], b({ 12: 1 })])).toEqual(b({ 0: 1, 1: 2, 12: 1 }));
  });
});
