import { describe, expect, it } from 'vitest';
import { WakeTimes } from './wake-times.ts';

describe('WakeTimes', () => {
  it('keeps instants sorted and unique, and drops the past', () => {
    const w = new WakeTimes();
    for (const t of [500, 100, 300, 100, 200]) w.add(t);
    expect(w.size).toBe(4);
    expect(w.next(0)).toBe(100);
    expect(w.next(100)).toBe(200);
    expect(w.next(250)).toBe(300);
    expect(w.next(1000)).toBeNull();
    expect(w.size).toBe(0);
  });

  it('is bounded: the latest instants are dropped', () => {
    const w = new WakeTimes(3);
    for (const t of [40, 10, 30, 20]) w.add(t);
    expect(w.size).toBe(3);
    expect([w.next(0), w.next(10), w.next(20), w.next(30)]).toEqual([10, 20, 30, null]);
  });
});
