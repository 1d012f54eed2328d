import { describe, expect, it } from 'vitest';
import { neverFiresProblem } from './never-fires';
import type { JobSchedule } from './spec';

const now = new Date('2026-03-01T00:00:00Z');
const base = { startAt: null, endAt: null, staggerSeconds: 0, jobId: 'j', createdAt: now };
const at = (iso: string) => new Date(iso);

describe('neverFiresProblem', () => {
  it('names the field to blame, or null while a fire is to come', () => {
    const cron: JobSchedule = { ...base, spec: { kind: 'cron', cron: '0 2 * * *', timezone: 'UTC' } };
    expect(neverFiresProblem(cron, now)).toBeNull();
    expect(neverFiresProblem({ ...base, spec: { kind: 'manual' } }, now)).toBeNull();
    expect(neverFiresProblem({ ...base, spec: { kind: 'once', runAt: at('2026-02-01T00:00:00Z') } }, now)).toEqual({ field: 'schedule.runAt', message: 'Is in the past: this job would never fire' });
    expect(neverFiresProblem({ ...cron, endAt: at('2026-02-01T00:00:00Z') }, now)?.field).toBe('endAt');
    expect(neverFiresProblem({ ...base, spec: { kind: 'cron', cron: '0 0 0 1 1 * 2025', timezone: 'UTC' } }, now)?.field).toBe('schedule.cron');
    // a window with no fire inside it
    expect(neverFiresProblem({ ...cron, startAt: at('2026-03-05T03:00:00Z'), endAt: at('2026-03-05T04:00:00Z') }, now)).toEqual({ field: 'endAt', message: 'No fire time falls inside startAt..endAt: this job would never fire' });
  });
});
