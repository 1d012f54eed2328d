import { describe, expect, it } from 'vitest';
import { DailyStatsQuery } from './get-daily-stats.ts';

const fields = (q: Record<string, string>) => {
  const r = DailyStatsQuery.safeParse(q);
  return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
};

describe('DailyStatsQuery', () => {
  it('names only the malformed date, not the other one as well', () => {
    expect(fields({ from: '2026-11-29T00:00:00Z', to: '2026-11-29' })).toEqual(['from']);
    expect(fields({ from: '2026-11-29', to: 'bad' })).toEqual(['to']);
  });

  it('still refuses from after to, and ranges over 366 days', () => {
    expect(fields({ from: '2026-11-30', to: '2026-11-29' })).toEqual(['to']);
    expect(fields({ from: '2024-01-01', to: '2026-11-29' })).toEqual(['from']);
    expect(fields({ from: '2026-11-01', to: '2026-11-29' })).toEqual([]);
  });
});
