export { MAX_TIMER_MS, safeDelays, setLongTimeout, type LongTimeout } from './long-timeout';

/** Retry backoff settings (docs/design.md §3 `backoff`): seconds, factor >= 1, jitter a ± fraction 0..1. */
export type BackoffConfig = { baseSeconds: number; factor: number; maxSeconds: number; jitter: number };

/**
 * Delay in ms before retrying after failed attempt `attempt` (1-based):
 * min(maxSeconds, baseSeconds * factor^(attempt-1)) seconds, then scaled by a
 * uniform factor in [1 - jitter, 1 + jitter] so retries of many tasks spread out
 * (docs/design.md §4 "Failure policy"). Jitter applies after the cap, so a capped
 * delay can exceed maxSeconds by up to the jitter fraction; never negative.
 * `random` returns [0, 1) (injectable for tests). Throws RangeError on bad input.
 */
export function retryDelayMs(config: BackoffConfig, attempt: number, random: () => number = Math.random): number {
  const { baseSeconds, factor, maxSeconds, jitter } = config;
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt must be an integer >= 1');
  if (!(baseSeconds >= 0) || !(maxSeconds >= 0) || !(factor >= 1) || !(jitter >= 0 && jitter <= 1)) {
    throw new RangeError('backoff needs baseSeconds >= 0, maxSeconds >= 0, factor >= 1, 0 <= jitter <= 1');
  }
  // factor^n overflows to Infinity long before attempts run out; min() absorbs it (0 * Infinity guarded).
  const raw = baseSeconds === 0 ? 0 : baseSeconds * factor ** (attempt - 1);
  const seconds = Math.min(maxSeconds, raw);
  const scaled = seconds * (1 + jitter * (2 * random() - 1));
  return Math.max(0, Math.round(scaled * 1000));
}
