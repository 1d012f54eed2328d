import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_LONG_TIMEOUT_MS, MAX_TIMER_MS, SAFE_DELAYS_MAX_CHUNKS, safeDelays, setLongTimeout } from './long-timeout';

/** Every delay handed to setTimeout while `body` runs (fake timers). */
function armedDelays(body: () => void): number[] {
  const spy = vi.spyOn(globalThis, 'setTimeout');
  body();
  const delays = spy.mock.calls.map((c) => Number(c[1] ?? 0));
  spy.mockRestore();
  return delays;
}

describe('setLongTimeout with absurd delays (H1: 1e100 crashed V8 building a chunk array)', () => {
  afterEach(() => {
    vi.clearAllTimers();
    vi.useRealTimers();
  });

  it('1e100 ms: no crash, returns at once, clamped to 10 years, never a timer above 2^31-1', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const delays = armedDelays(() => {
      const t = setLongTimeout(fn, 1e100);
      vi.advanceTimersByTime(MAX_TIMER_MS * 3);
      expect(fn).not.toHaveBeenCalled();
      t.clear();
    });
    expect(delays.length).toBeGreaterThan(0);
    for (const d of delays) expect(d).toBeLessThanOrEqual(MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_LONG_TIMEOUT_MS + 1);
    expect(fn).not.toHaveBeenCalled();
  });

  it('Number.MAX_VALUE and 1e100 fire once, exactly at the 10-year clamp', () => {
    for (const ms of [Number.MAX_VALUE, 1e100]) {
      vi.useFakeTimers();
      const fn = vi.fn();
      const delays = armedDelays(() => {
        setLongTimeout(fn, ms);
        vi.advanceTimersByTime(MAX_LONG_TIMEOUT_MS - 1);
        expect(fn).not.toHaveBeenCalled();
        vi.advanceTimersByTime(1);
        expect(fn).toHaveBeenCalledTimes(1);
        vi.advanceTimersByTime(MAX_LONG_TIMEOUT_MS);
        expect(fn).toHaveBeenCalledTimes(1);
      });
      for (const d of delays) expect(d).toBeLessThanOrEqual(MAX_TIMER_MS);
      vi.useRealTimers();
    }
  });

  it('Infinity never fires, arms no timer, and clear() is harmless', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const delays = armedDelays(() => {
      const t = setLongTimeout(fn, Infinity);
      vi.advanceTimersByTime(MAX_LONG_TIMEOUT_MS * 2);
      t.clear();
      t.clear();
    });
    expect(fn).not.toHaveBeenCalled();
    expect(delays).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('NaN, -Infinity and negative delays behave like setTimeout(fn, 0)', () => {
    for (const ms of [NaN, -Infinity, -5]) {
      vi.useFakeTimers();
      const fn = vi.fn();
      const delays = armedDelays(() => setLongTimeout(fn, ms));
      expect(delays).toEqual([0]);
      expect(fn).not.toHaveBeenCalled();
      vi.advanceTimersByTime(0);
      expect(fn).toHaveBeenCalledTimes(1);
      vi.useRealTimers();
    }
  });

  it('keeps at most one pending timer while chaining (no chunk array)', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    setLongTimeout(fn, MAX_TIMER_MS * 5 + 7);
    for (let i = 0; i < 5; i++) {
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersByTime(MAX_TIMER_MS);
    }
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(7);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('safeDelays refuses absurd delays instead of building a huge array', () => {
    expect(() => safeDelays(1e100)).toThrow(RangeError);
    expect(() => safeDelays(Infinity)).toThrow(RangeError);
    expect(() => safeDelays(NaN)).toThrow(RangeError);
    expect(safeDelays(MAX_LONG_TIMEOUT_MS).length).toBeLessThan(200);
    expect(safeDelays(SAFE_DELAYS_MAX_CHUNKS * MAX_TIMER_MS).length).toBe(SAFE_DELAYS_MAX_CHUNKS);
    expect(() => safeDelays(SAFE_DELAYS_MAX_CHUNKS * MAX_TIMER_MS + 1)).toThrow(RangeError);
  });
});
