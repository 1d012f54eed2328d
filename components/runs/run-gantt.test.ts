import { describe, expect, it } from 'vitest';
import { formatDuration } from '@/lib/time/format';
import { ganttAxis, timelineCaption, timelineSpan } from './run-gantt';

describe('ganttAxis', () => {
  const cases: { span: number; ticks: number[] }[] = [
    { span: 0, ticks: [0, 1] },
    { span: 3, ticks: [0, 1, 2, 3] },
    { span: 341, ticks: [0, 100, 200, 300, 400] },
    { span: 1_000, ticks: [0, 250, 500, 750, 1_000] },
    { span: 95_000, ticks: [0, 30_000, 60_000, 90_000, 120_000] },
  ];
  for (const c of cases) {
    it(`${c.span} ms`, () => {
      const a = ganttAxis(c.span);
      expect(a.ticks).toEqual(c.ticks);
      expect(a.end).toBeGreaterThanOrEqual(c.span);
    });
  }

  it('never repeats a label, however short the run', () => {
    for (const span of [0, 1, 2, 3, 4, 7, 9, 13, 999, 1_001, 59_999, 3_600_001]) {
      const labels = ganttAxis(span).ticks.map((t) => formatDuration(t));
      expect(new Set(labels).size).toBe(labels.length);
    }
  });
});

describe('timelineSpan and its caption', () => {
  it('splits the total into the wait before the first start and the run from it to the last end', () => {
    const span = timelineSpan([
      { ready: 1_000, start: 1_059, end: 1_300 },
      { ready: 1_300, start: 1_320, end: 1_589 },
    ])!;
    expect(span).toEqual({ t0: 1_000, totalMs: 589, queuedMs: 59, ranMs: 530 });
    expect(timelineCaption(span, 'T')).toBe(
      'Waiting to be claimed (light) and running (coloured), from T: 589 ms in all, 59 ms queued before the first task started + 530 ms from that start to the last end (as the run\'s Duration counts)',
    );
  });

  it('says so while no task has started, and has nothing to show without times', () => {
    const span = timelineSpan([{ ready: 5_000, start: null, end: null }])!;
    expect(span).toEqual({ t0: 5_000, totalMs: 0, queuedMs: null, ranMs: null });
    expect(timelineCaption(span, 'T')).toMatch(/: 0 ms in all, no task has started yet$/);
    expect(timelineSpan([])).toBeNull();
  });
});
