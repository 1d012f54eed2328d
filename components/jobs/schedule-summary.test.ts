import { describe, expect, it } from 'vitest';
import { scheduleSummary } from './schedule-summary';

describe('scheduleSummary (the jobs list, the recycle bin, the job page)', () => {
  it('a once job says when, in its own zone', () => {
    expect(scheduleSummary({ kind: 'once', runAt: '2026-12-07T18:06:00.000Z', timezone: 'Europe/Berlin' })).toBe('once 2026-12-07 19:06 UTC+1');
    expect(scheduleSummary({ kind: 'once', runAt: '2026-12-07T18:06:00.000Z', timezone: 'UTC' })).toBe('once 2026-12-07 18:06 UTC');
  });
  it('the other kinds', () => {
    expect(scheduleSummary({ kind: 'cron', cron: '0 2 * * *', timezone: 'Asia/Shanghai' })).toBe('0 2 * * * · Asia/Shanghai');
    expect(scheduleSummary({ kind: 'interval', intervalSeconds: 120 })).toBe('every 2m');
    expect(scheduleSummary({ kind: 'manual' })).toBe('manual');
  });
});
