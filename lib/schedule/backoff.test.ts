import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAX_TIMER_MS, retryDelayMs, safeDelays, setLongTimeout } from './backoff';

const cfg = { baseSeconds: 2, factor: 3, maxSeconds: 60, jitter: 0 };
describe('retryDelayMs', () => {
  it.each([
    [1, 2000],
    [2, 6000],
    [3, 18000],
    [4, 54000],
    [5, 60000],
    [200, 60000],
    [5000, 60000],
  ])('attempt %i -> %i ms (growth and cap)', (attempt, ms) => expect(retryDelayMs(cfg, attempt)).toBe(ms));

  it('jitter stays within ± fraction and is never negative', () => {
    const j = { ...cfg, jitter: 0.25 };
    expect(retryDelayMs(j, 1, () => 0)).toBe(1500);
    expect(retryDelayMs(j, 1, () => 0.999999)).toBeCloseTo(2500, -1);
    for (let i = 0; i < 1000; i++) {
      const v = retryDelayMs(j, 2);
      expect(v).toBeGreaterThanOrEqual(4500);
      expect(v).toBeLessThanOrEqual(7500);
    }
    expect(retryDelayMs({ ...cfg, jitter: 1 }, 1, () => 0)).toBe(0);
  });
  it('zero base never yields NaN', () => expect(retryDelayMs({ ...cfg, baseSeconds: 0 }, 3000)).toBe(0));
  it('rejects bad input', () => {
    expect(() => retryDelayMs(cfg, 0)).toThrow(RangeError);
    expect(() => retryDelayMs({ ...cfg, jitter: 2 }, 1)).toThrow(RangeError);
    expect(() => retryDelayMs({ ...cfg, factor: 0.5 }, 1)).toThrow(RangeError);
  });
});

describe('long timers', () => {
  afterEach(() => vi.useRealTimers());
  it('safeDelays splits above 2^31-1', () => {
    expect(MAX_TIMER_MS).toBe(2147483647);
    expect(safeDelays(2 ** 32)).toEqual([MAX_TIMER_MS, MAX_TIMER_MS, 2]);
    expect(safeDelays(1000)).toEqual([1000]);
    expect(safeDelays(0)).toEqual([]);
    expect(safeDelays(2 ** 40).every((c) => c <= MAX_TIMER_MS)).toBe(true);
  });
  it('a 2^32 ms timeout does not fire early, then fires once', () => {
    vi.useFakeTimers();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const fn = vi.fn();
    setLongTimeout(fn, 2 ** 32);
    vi.advanceTimersByTime(1);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2 ** 32 - 2);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(2 ** 33);
    expect(fn).toHaveBeenCalledTimes(1);
    for (const call of spy.mock.calls) expect(call[1] ?? 0).toBeLessThanOrEqual(MAX_TIMER_MS);
  });
  it('clear() cancels, also mid-chain', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    const t = setLongTimeout(fn, 2 ** 32);
    vi.advanceTimersByTime(MAX_TIMER_MS + 10);
    t.clear();
    vi.advanceTimersByTime(2 ** 33);
    expect(fn).not.toHaveBeenCalled();
  });
  it('a zero delay still runs asynchronously', () => {
    vi.useFakeTimers();
    const fn = vi.fn();
    setLongTimeout(fn, 0);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(0);
    expect(fn).toHaveBeenCalledTimes(1);
  });
});
