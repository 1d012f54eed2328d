import { describe, expect, it } from 'vitest';
import { bulkReport, MAX_LISTED } from './bulk-report.ts';

describe('bulkReport', () => {
  it('every job done: one success line, nothing left ticked', () => {
    expect(bulkReport('resume', [{ id: 'a', ok: true }, { id: 'b', ok: true }])).toEqual({ kind: 'success', title: '2 jobs resumed', refused: [] });
    expect(bulkReport('delete', [{ id: 'a', ok: true }]).title).toBe('1 job moved to the recycle bin');
  });
  it('some refused: the others are done, each refusal named, the refused ones stay ticked', () => {
    const r = bulkReport('resume', [
      { id: 'a', ok: true },
      { id: 'b', ok: false, message: 'Job once.report cannot be resumed: schedule.runAt: Is in the past: this job would never fire; change its schedule first' },
      { id: 'c', ok: true },
    ]);
    expect(r).toEqual({
      kind: 'error',
      title: '2 of 3 jobs resumed; 1 refused',
      description: 'Job once.report cannot be resumed: schedule.runAt: Is in the past: this job would never fire; change its schedule first',
      refused: ['b'],
    });
  });
  it('all refused, and a long list cut after MAX_LISTED names', () => {
    const outcomes = Array.from({ length: MAX_LISTED + 2 }, (_, i) => ({ id: `j${i}`, ok: false as const, message: `Job j${i} cannot be resumed` }));
    const r = bulkReport('resume', outcomes);
    expect(r.title).toBe('None of 7 jobs resumed: each refused');
    expect(r.description!.split('\n')).toEqual([...outcomes.slice(0, MAX_LISTED).map((o) => o.message), '…and 2 more refused']);
    expect(r.refused).toHaveLength(7);
  });
});
