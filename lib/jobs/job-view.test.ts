import { describe, expect, it } from 'vitest';
import type { Job } from '../generated/prisma/client.ts';
import { deadLetterNote, nextFireOf, nextFireTimesOf, notFiringReason, toJobListItem, toJobView } from './job-view.ts';

const NONE = { aheadSlot: null, lastRun: null };

// A cron job row with what the view reads; the rest of the row does not matter here.
function jobRow(over: Partial<Job>): Job {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    key: 'nightly',
    name: 'Nightly',
    description: '',
    status: 'active',
    scheduleKind: 'cron',
    cronExpression: '0 3 * * *',
    timezone: 'UTC',
    version: 2,
    nextRunAt: new Date('2026-12-01T03:00:00Z'),
    createdAt: new Date('2026-11-01T00:00:00Z'),
    updatedAt: new Date('2026-11-30T00:00:00Z'),
    deletedAt: null,
    deletedBy: null,
    routingNodes: [],
    ...over,
  } as unknown as Job;
}

describe('notFiringReason', () => {
  it('a deleted job never fires, whatever status it keeps for its restore', () => {
    expect(notFiringReason({ status: 'active', deletedAt: new Date() })).toBe('deleted');
    expect(notFiringReason({ status: 'paused', deletedAt: '2026-12-01T00:00:00Z' })).toBe('deleted');
  });
  it('a live job fires while active, and says why not when paused or dead-lettered', () => {
    expect(notFiringReason({ status: 'active', deletedAt: null })).toBeNull();
    expect(notFiringReason({ status: 'paused', deletedAt: null })).toBe('paused');
    expect(notFiringReason({ status: 'dead_letter', deletedAt: null })).toBe('dead_letter');
  });
});

describe('toJobView / toJobListItem: nextRunAt', () => {
  it('is null for a deleted job (an active job in the recycle bin still keeps next_run_at in its row)', () => {
    const row = jobRow({ deletedAt: new Date('2026-11-30T12:00:00Z'), deletedBy: 'admin' });
    expect(toJobView(row, [], [], NONE).nextRunAt).toBeNull();
    expect(toJobListItem(row, [], NONE).nextRunAt).toBeNull();
  });
  it('is the stored next fire for a live job, active or paused', () => {
    expect(toJobView(jobRow({}), [], [], NONE).nextRunAt).toBe('2026-12-01T03:00:00.000Z');
    expect(toJobView(jobRow({ status: 'paused' }), [], [], NONE).nextRunAt).toBe('2026-12-01T03:00:00.000Z');
  });
});

describe('nextFireOf / nextFireAt: the next fire (docs/on-time.md "Next fire")', () => {
  const stored = new Date('2026-12-02T03:00:00Z'); // the tick's cursor, already past the slot fired ahead
  const ahead = new Date('2026-12-01T03:00:00Z'); // the slot of the run created ahead
  it.each([
    ['active, no run ahead', { status: 'active', deletedAt: null }, null, stored],
    ['active, a run ahead', { status: 'active', deletedAt: null }, ahead, ahead],
    ['paused, no run ahead', { status: 'paused', deletedAt: null }, null, null],
    ['once job the tick paused after firing its slot ahead', { status: 'paused', deletedAt: null, nextRunAt: null }, ahead, ahead],
    ['dead letter keeping a run ahead', { status: 'dead_letter', deletedAt: null }, ahead, ahead],
    ['dead letter', { status: 'dead_letter', deletedAt: null }, null, null],
    ['deleted', { status: 'active', deletedAt: new Date() }, ahead, null],
  ] as const)('%s', (_name, job, slot, expected) => {
    expect(nextFireOf({ nextRunAt: stored, ...job }, slot)).toEqual(expected);
  });
  it('the views carry it beside nextRunAt, which stays the tick\'s cursor', () => {
    const row = jobRow({ nextRunAt: stored });
    expect(toJobView(row, [], [], { aheadSlot: ahead, lastRun: null })).toMatchObject({ nextRunAt: stored.toISOString(), nextFireAt: ahead.toISOString() });
    expect(toJobListItem(row, [], { aheadSlot: ahead, lastRun: null })).toMatchObject({ nextRunAt: stored.toISOString(), nextFireAt: ahead.toISOString() });
    expect(toJobListItem(row, [], NONE)).toMatchObject({ nextFireAt: stored.toISOString() });
    expect(toJobListItem(jobRow({ status: 'paused' }), [], NONE).nextFireAt).toBeNull();
  });
});

describe('toJobView / toJobListItem: the last run (docs/console.md "Last run")', () => {
  const created = new Date('2026-12-01T03:00:00Z');
  it('status and time are the last run\'s own, its live status included', () => {
    const row = jobRow({ lastRunAt: created });
    const lastRun = { id: '00000000-0000-4000-8000-0000000000aa', status: 'running', createdAt: created };
    const want = { lastRunId: lastRun.id, lastRunAt: created.toISOString(), lastRunStatus: 'running' };
    expect(toJobView(row, [], [], { aheadSlot: null, lastRun })).toMatchObject(want);
    expect(toJobListItem(row, [], { aheadSlot: null, lastRun })).toMatchObject(want);
  });
  it('a last run gone from history keeps its time and shows no status, never another run\'s', () => {
    expect(toJobView(jobRow({ lastRunAt: created }), [], [], NONE)).toMatchObject({ lastRunId: null, lastRunAt: created.toISOString(), lastRunStatus: null });
    expect(toJobView(jobRow({ lastRunAt: null }), [], [], NONE)).toMatchObject({ lastRunId: null, lastRunAt: null, lastRunStatus: null });
  });
});

describe('deadLetterNote: why the system paused a job', () => {
  it('gives the count and error recorded when it moved (its last error), not the live counter a marked success reset', () => {
    expect(deadLetterNote({ lastError: 'dead letter after 2 failed runs in a row; last error: load: timeout' }))
      .toBe('Dead letter: the system paused this job (dead letter after 2 failed runs in a row; last error: load: timeout). Resume clears it.');
    expect(deadLetterNote({ lastError: null })).toBe('Dead letter: the system paused this job when its failed runs in a row reached its limit. Resume clears it.');
  });
});

describe('nextFireTimesOf', () => {
  const hourly = jobRow({ cronExpression: '0 * * * *', nextRunAt: new Date('2026-12-01T03:00:00Z'), staggerSeconds: 0, startAt: null, endAt: null, intervalSeconds: null, runAt: null });
  it('from the next fire, the slots after it', () => {
    expect(nextFireTimesOf(hourly, hourly.nextRunAt, 3, false, new Date('2026-12-01T02:10:00Z'))).toEqual(['2026-12-01T03:00:00.000Z', '2026-12-01T04:00:00.000Z', '2026-12-01T05:00:00.000Z']);
  });
  it('an overdue next fire (the tick was down) is listed once, as due now, then the slots after now: not the missed ones', () => {
    // at 10:20 a next fire of 03:00 is overdue; 04:00 … 10:00 are the misfire policy's, the next fire after now is 11:00
    expect(nextFireTimesOf(hourly, hourly.nextRunAt, 3, false, new Date('2026-12-01T10:20:00Z'))).toEqual(['2026-12-01T03:00:00.000Z', '2026-12-01T11:00:00.000Z', '2026-12-01T12:00:00.000Z']);
  });
});
