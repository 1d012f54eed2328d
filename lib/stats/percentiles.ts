import { DURATION_BUCKET_BOUNDS_MS, DURATION_BUCKET_COUNT } from '../engine/stats.ts';

/**
 * Percentile estimation from the fixed duration histogram of handler_stats_daily
 * (bucket bounds: lib/engine/stats.ts DURATION_BUCKET_BOUNDS_MS, in ms).
 *
 * Interpolation: with N = total count and target rank r = p * N, find the first bucket whose
 * cumulative count reaches r; assume its durations are spread evenly between its lower bound
 * (previous bound, 0 for the first bucket) and its upper bound (its own bound; for the last,
 * open-ended bucket the observed max duration, at least 300000 ms), and return
 * lower + (r - countBefore) / countInBucket * (upper - lower), clamped to the observed max
 * when one is given. So the error is at most one bucket width (e.g. p95 = 1800 ms means
 * "between 1000 and 2500 ms, most likely near 1800") — the price of never scanning detail rows.
 * Returns null when the histogram is empty. Results are whole ms.
 */
export function estimatePercentile(buckets: readonly number[], p: number, maxDurationMs?: number | null): number | null {
  const n = buckets.reduce((a, b) => a + (b > 0 ? b : 0), 0);
  if (n === 0) return null;
  const rank = Math.min(1, Math.max(0, p)) * n;
  let before = 0;
  for (let i = 0; i < buckets.length; i++) {
    const c = buckets[i] > 0 ? buckets[i] : 0;
    if (c === 0) continue;
    if (before + c >= rank) {
      const lower = i === 0 ? 0 : DURATION_BUCKET_BOUNDS_MS[i - 1];
      const upper = i < DURATION_BUCKET_BOUNDS_MS.length ? DURATION_BUCKET_BOUNDS_MS[i] : Math.max(lower, maxDurationMs ?? lower);
      let v = lower + ((rank - before) / c) * (upper - lower);
      if (maxDurationMs != null && maxDurationMs > 0) v = Math.min(v, maxDurationMs);
      return Math.round(v);
    }
    before += c;
  }
  return maxDurationMs ?? null;
}

/** Element-wise sum of histograms, padded to DURATION_BUCKET_COUNT (older rows may be shorter or empty). */
export function sumBuckets(list: readonly (readonly number[])[]): number[] {
  const out = new Array<number>(DURATION_BUCKET_COUNT).fill(0);
  for (const b of list) for (let i = 0; i < b.length; i++) out[i] = (out[i] ?? 0) + (b[i] ?? 0);
  return out;
}

/** A histogram padded/normalised to DURATION_BUCKET_COUNT elements (for comparisons). */
export function normaliseBuckets(b: readonly number[] | null | undefined): number[] {
  return sumBuckets([b ?? []]);
}
