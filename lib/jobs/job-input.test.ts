import { describe, expect, it } from 'vitest';
import type { Job } from '../generated/prisma/client.ts';
import { staggerOffsetMs } from '../schedule/stagger.ts';
import { computeNextRunAt, JOB_DEFAULTS, policyColumns } from './job-input.ts';

const ID = '00000000-0000-4000-8000-000000000001';

function hourlyJob(over: Partial<Job> = {}): Job {
  return {
    id: ID,
    scheduleKind: 'cron',
    cronExpression: '0 * * * *',
    timezone: 'Asia/Kolkata',
    intervalSeconds: null,
    runAt: null,
    startAt: null,
    endAt: null,
    staggerSeconds: 3600,
    createdAt: new Date('2026-12-01T00:00:00Z'),
    ...over,
  } as unknown as Job;
}

describe('computeNextRunAt (jobs.next_run_at on create, edit, resume, restore)', () => {
  it('is the first due instant after now (slot + stagger), as the tick fires: a slot whose offset is still to come is not skipped', () => {
    const offset = staggerOffsetMs(ID, 3600);
    expect(offset).toBeGreaterThan(60_000);
    // Kolkata is UTC+5:30: its hours start at :30 UTC
    const slot = new Date('2026-12-05T04:30:00Z');
    const afterSlot = new Date(slot.getTime() + offset - 60_000);
    expect(computeNextRunAt(hourlyJob(), afterSlot)).toEqual(new Date(slot.getTime() + offset));
    // at its due instant the slot is no longer to come: the next hour's
    const due = new Date(slot.getTime() + offset);
    expect(computeNextRunAt(hourlyJob(), due)).toEqual(new Date(slot.getTime() + 3_600_000 + offset));
  });

  it('without a stagger it is the next slot; manual jobs and exhausted windows have none', () => {
    const now = new Date('2026-12-05T04:40:00Z');
    expect(computeNextRunAt(hourlyJob({ staggerSeconds: 0 }), now)).toEqual(new Date('2026-12-05T05:30:00Z'));
    expect(computeNextRunAt(hourlyJob({ scheduleKind: 'manual', cronExpression: null }), now)).toBeNull();
    expect(computeNextRunAt(hourlyJob({ endAt: new Date('2026-12-05T04:00:00Z') }), now)).toBeNull();
  });

  it('a window start after the slot keeps the slot out, stagger or not', () => {
    const offset = staggerOffsetMs(ID, 3600);
    const slot = new Date('2026-12-05T04:30:00Z');
    const now = new Date(slot.getTime() + 60_000);
    const job = hourlyJob({ startAt: new Date(slot.getTime() + 30_000) });
    expect(computeNextRunAt(job, now)).toEqual(new Date(slot.getTime() + 3_600_000 + offset));
  });
});

describe('policyColumns: a backoff whose maxSeconds ends below its baseSeconds is refused', () => {
  const fieldsOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as { fields?: Record<string, string> }).fields;
    }
    return null;
  };
  it('names maxSeconds when the request sets it below the base, baseSeconds when only the base passes the stored cap', () => {
    expect(Object.keys(fieldsOf(() => policyColumns({ backoff: { baseSeconds: 60, maxSeconds: 30 } })) ?? {})).toEqual(['policy.backoff.maxSeconds']);
    // the default cap is 300 s
    expect(Object.keys(fieldsOf(() => policyColumns({ backoff: { baseSeconds: 600 } })) ?? {})).toEqual(['policy.backoff.baseSeconds']);
    expect(Object.keys(fieldsOf(() => policyColumns({ backoff: { maxSeconds: 0.5 } })) ?? {})).toEqual(['policy.backoff.maxSeconds']);
  });
  it('accepts equal values, and leaves a stored backoff alone when the change does not touch it', () => {
    expect(policyColumns({ backoff: { baseSeconds: 300, maxSeconds: 300 } }).backoffMaxSeconds).toBe(300);
    const stored = { ...JOB_DEFAULTS.policy, backoff: { baseSeconds: 600, factor: 2, maxSeconds: 300, jitter: 0 } };
    expect(policyColumns({ timeoutSeconds: 60 }, stored).backoffBaseSeconds).toBe(600);
  });
});
