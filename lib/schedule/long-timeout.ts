/**
 * Largest delay setTimeout honours: above 2^31-1 ms Node fires after 1 ms
 * (docs/engine-cases.md case 3 forbids such timers).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Longest delay setLongTimeout will actually wait for: 10 years (365.25-day
 * years). A finite delay above it is CLAMPED to it (it still fires, ~10 years
 * later — nothing in Tickflow legitimately waits that long, and a clamp keeps
 * the "fires once, later" contract without materialising absurd chains).
 * `Infinity` means "never": no timer fires at all (the handle is still
 * clearable). Negative, zero and NaN delays behave like setTimeout(fn, 0).
 */
export const MAX_LONG_TIMEOUT_MS = Math.round(10 * 365.25 * 24 * 3600 * 1000);

/** Normalises a delay: NaN/negative -> 0, finite -> ceil clamped to MAX_LONG_TIMEOUT_MS, +Infinity -> Infinity. */
function normaliseDelay(ms: number): number {
  if (ms === Infinity) return Infinity;
  if (typeof ms !== 'number' || !(ms > 0)) return 0; // NaN, -Infinity, <= 0
  return Math.min(MAX_LONG_TIMEOUT_MS, Math.ceil(ms));
}

/**
 * Splits a delay in ms into chunks each <= MAX_TIMER_MS (empty for <= 0).
 * Throws RangeError if not finite or if it would take more than
 * SAFE_DELAYS_MAX_CHUNKS chunks (~279 years), so the array stays small.
 * setLongTimeout does not use it; it computes one chunk at a time.
 */
export const SAFE_DELAYS_MAX_CHUNKS = 4096;
export function safeDelays(ms: number): number[] {
  if (!Number.isFinite(ms)) throw new RangeError('delay must be a finite number of ms');
  if (ms > SAFE_DELAYS_MAX_CHUNKS * MAX_TIMER_MS) {
    throw new RangeError(`delay must be at most ${SAFE_DELAYS_MAX_CHUNKS * MAX_TIMER_MS} ms (${SAFE_DELAYS_MAX_CHUNKS} timer chunks)`);
  }
  const out: number[] = [];
  let left = Math.max(0, Math.ceil(ms));
  while (left > MAX_TIMER_MS) {
    out.push(MAX_TIMER_MS);
    left -= MAX_TIMER_MS;
  }
  if (left > 0) out.push(left);
  return out;
}

/** Handle of setLongTimeout. */
export type LongTimeout = { clear(): void };

/**
 * setTimeout for any delay in ms: chains timers of at most MAX_TIMER_MS so a
 * one-year timeout neither fires at once nor overflows. The next chunk is
 * computed from the remaining delay each time (no array of chunks, O(1)
 * memory whatever the delay). `fn` runs once, unless clear() is called first.
 * Counts chunks, not wall time, so clock jumps do not shorten it.
 *
 * Never throws: `Infinity` never fires (no timer is even armed); a finite
 * delay above MAX_LONG_TIMEOUT_MS (10 years) is clamped to it; NaN, negative
 * and zero delays run `fn` asynchronously, like setTimeout(fn, 0).
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimeout {
  let left = normaliseDelay(ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cleared = false;
  const next = (): void => {
    timer = undefined;
    if (cleared) return;
    if (left <= 0) {
      cleared = true;
      fn();
      return;
    }
    const d = Math.min(left, MAX_TIMER_MS);
    left -= d;
    timer = setTimeout(next, d);
  };
  if (left === Infinity) {
    // "Never": nothing to arm. Keeping no timer also keeps the event loop free.
  } else if (left === 0) {
    // A zero delay still goes through setTimeout: callers expect async, like setTimeout(fn, 0).
    timer = setTimeout(next, 0);
  } else {
    next();
  }
  return {
    clear() {
      cleared = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
