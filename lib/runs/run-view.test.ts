import { describe, expect, it } from 'vitest';
import type { Run } from '../generated/prisma/client.ts';
import { attemptLabel, operatorAttemptCount, reopenBlockedBy, runDurationMs, toRunSummary, type TaskLogView } from './run-view';

type Log = Pick<TaskLogView, 'attempt' | 'toStatus' | 'detail'>;
const log = (attempt: number, toStatus: Log['toStatus'], actor?: string): Log => ({ attempt, toStatus, detail: actor ? { actor } : {} });
const STARTED = '2026-12-01T10:00:00.000Z';

describe('operatorAttemptCount', () => {
  it('counts an operator retry of a dead task (the attempt rises on the operator re-open)', () => {
    const logs = [log(1, 'pending'), log(1, 'running'), log(1, 'failed'), log(1, 'dead'), log(2, 'pending', 'ops@example.com'), log(2, 'running'), log(2, 'success')];
    expect(operatorAttemptCount(logs)).toBe(1);
  });

  it('does not count the engine\'s own retries', () => {
    const logs = [log(1, 'pending'), log(1, 'running'), log(1, 'failed'), log(2, 'pending'), log(2, 'running'), log(2, 'success')];
    expect(operatorAttemptCount(logs)).toBe(0);
  });

  it('does not count a re-open of a task that never started (its attempt stays 1), nor a cancel by an operator', () => {
    const logs = [log(1, 'pending'), log(1, 'skipped'), log(1, 'pending', 'ops@example.com'), log(1, 'running'), log(1, 'cancelled', 'ops@example.com')];
    expect(operatorAttemptCount(logs)).toBe(0);
  });

  it('counts each clear and retry, with automatic retries in between', () => {
    const logs = [
      log(1, 'pending'), log(1, 'running'), log(1, 'success'),
      log(2, 'pending', 'ops@example.com'), log(2, 'running'), log(2, 'failed'), log(3, 'pending'), log(3, 'running'), log(3, 'failed'), log(3, 'dead'),
      log(4, 'pending', 'ops@example.com'), log(4, 'running'), log(4, 'success'),
    ];
    expect(operatorAttemptCount(logs)).toBe(2);
  });
});

describe('attemptLabel', () => {
  it('a step without a task (a run the block strategy skipped) made no attempt: no attempt number', () => {
    expect(attemptLabel(null)).toMatchObject({ short: 'no attempt', long: 'no attempt' });
  });

  it('a task that never started made no attempt', () => {
    expect(attemptLabel({ attempt: 1, startedAt: null, maxRetries: 2, operatorAttempts: 0 })).toMatchObject({ short: 'no attempt', long: 'no attempt' });
  });

  it('within the automatic budget: the attempt of at most maxRetries + 1', () => {
    expect(attemptLabel({ attempt: 1, startedAt: STARTED, maxRetries: 2, operatorAttempts: 0 })).toEqual({
      short: 'attempt 1',
      long: 'attempt 1 of 3',
      title: 'Attempt 1 of at most 3 automatic: max retries 2',
    });
  });

  it('an operator retry beyond a budget of one attempt never reads "2 / 1": it names the split', () => {
    const a = attemptLabel({ attempt: 2, startedAt: STARTED, maxRetries: 0, operatorAttempts: 1 });
    expect(a.long).toBe('attempt 2 (1 automatic + 1 by operator)');
    expect(a.short).toBe('attempt 2');
    expect(a.title).toBe('Attempt 2: 1 automatic (at most 1 automatic: max retries 0) and 1 started by an operator (Retry task or Clear)');
    expect(`${a.long} ${a.title}`).not.toMatch(/2 \/ 1|2 of 1/);
  });

  it('automatic retries after an operator re-run are counted as automatic', () => {
    expect(attemptLabel({ attempt: 3, startedAt: STARTED, maxRetries: 2, operatorAttempts: 1 }).long).toBe('attempt 3 (2 automatic + 1 by operator)');
  });

  it('without the budget (a view that does not load it) only the number is written', () => {
    expect(attemptLabel({ attempt: 2, startedAt: STARTED })).toMatchObject({ short: 'attempt 2', long: 'attempt 2' });
  });
});

describe('runDurationMs', () => {
  const start = Date.parse(STARTED);
  it('is the stored duration once the run ended, whatever the clock', () => {
    expect(runDurationMs({ startedAt: STARTED, durationMs: 1_185 }, start + 99_999)).toBe(1_185);
    expect(runDurationMs({ startedAt: STARTED, durationMs: 1_185 }, null)).toBe(1_185);
  });
  it('counts from the start to now while the run goes on, and is unknown before a start or a clock', () => {
    expect(runDurationMs({ startedAt: STARTED, durationMs: null }, start + 2_500)).toBe(2_500);
    expect(runDurationMs({ startedAt: STARTED, durationMs: null }, null)).toBeNull();
    expect(runDurationMs({ startedAt: null, durationMs: null }, start)).toBeNull();
  });
});

describe('toRunSummary latenessMs', () => {
  const slot = new Date('2026-12-05T02:00:00.000Z');
  const run = (trigger: Run['trigger'], startedAt: Date | null): Run => ({
    id: '00000000-0000-4000-8000-000000000001', jobId: '00000000-0000-4000-8000-000000000002', jobKey: 'k', jobVersion: 1,
    trigger, triggeredBy: 'ops@example.com', scheduledFor: slot, status: startedAt ? 'success' : 'pending', reason: null,
    startedAt, finishedAt: null, durationMs: null, error: null, params: {}, traceId: 'trace-1', parentRunId: null,
    createdAt: slot, updatedAt: slot,
  }) as Run;

  it('is the start minus the slot for a run of the schedule, and null until it starts', () => {
    expect(toRunSummary(run('schedule', new Date(slot.getTime() + 1_500)), false).latenessMs).toBe(1_500);
    expect(toRunSummary(run('schedule', null), false).latenessMs).toBeNull();
  });

  it('is null for a backfill run, whose slot is in the past on purpose (the stats count none either)', () => {
    expect(toRunSummary(run('backfill', new Date(slot.getTime() + 88_363_133)), false).latenessMs).toBeNull();
  });
});

describe('reopenBlockedBy', () => {
  const statuses: Record<string, string> = { ok: 'success', dead: 'dead', cancelled: 'cancelled', running: 'running', skipped: 'skipped' };
  const of = (step: string) => statuses[step];
  it('names the first final parent whose edge the child does not satisfy', () => {
    expect(reopenBlockedBy([{ step: 'ok', type: 'hard' }, { step: 'dead', type: 'hard' }], of)).toEqual({ step: 'dead', type: 'hard', status: 'dead' });
    // on_failure runs only after a dead parent: a success or a cancel skips it again
    expect(reopenBlockedBy([{ step: 'ok', type: 'on_failure' }], of)).toEqual({ step: 'ok', type: 'on_failure', status: 'success' });
    expect(reopenBlockedBy([{ step: 'cancelled', type: 'on_failure' }], of)).toEqual({ step: 'cancelled', type: 'on_failure', status: 'cancelled' });
  });
  it('is null for satisfied edges, soft edges, parents not final and unknown steps', () => {
    expect(reopenBlockedBy([{ step: 'ok', type: 'hard' }, { step: 'dead', type: 'on_failure' }, { step: 'dead', type: 'soft' }], of)).toBeNull();
    expect(reopenBlockedBy([{ step: 'running', type: 'hard' }, { step: 'missing', type: 'hard' }], of)).toBeNull();
    expect(reopenBlockedBy([], of)).toBeNull();
  });
});
