/**
 * Largest delay setTimeout honours: above 2^31-1 ms Node fires after 1 ms
 * (engine.md case 3 forbids such timers).
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Splits a delay in ms into chunks each <= MAX_TIMER_MS (empty for <= 0). Throws RangeError if not finite. */
export function safeDelays(ms: number): number[] {
  if (!Number.isFinite(ms)) throw new RangeError('delay must be a finite number of ms');
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
 * one-year timeout neither fires at once nor overflows. `fn` runs once, unless
 * clear() is called first. Counts chunks, not wall time, so clock jumps do not
 * shorten it. Throws RangeError if `ms` is not finite.
 */
export function setLongTimeout(fn: () => void, ms: number): LongTimeout {
  const chunks = safeDelays(ms);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let cleared = false;
  const next = (): void => {
    if (cleared) return;
    const d = chunks.shift();
    if (d === undefined) {
      fn();
      return;
    }
    timer = setTimeout(next, d);
  };
  // A zero delay still goes through setTimeout: callers expect async, like setTimeout(fn, 0).
  if (chunks.length === 0) chunks.push(0);
  next();
  return {
    clear() {
      cleared = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
