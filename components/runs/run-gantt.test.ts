import { describe, expect, it } from 'vitest';
import { formatDuration } from '@/lib/time/format';
import { ganttAxis } from './run-gantt';

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
