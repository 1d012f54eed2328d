import { describe, expect, it } from 'vitest';
import type { TaskLogView, TaskView } from '@/lib/runs/run-view';
import { formatDuration } from '@/lib/time/format';
import { attemptEnds, ganttAxis, taskAttempts, timelineCaption, timelineSpan } from './run-gantt-model';

const T0 = Date.parse('2026-12-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

let seq = 0;
/** A task_logs row `from -> to` of `attempt`, `ms` after T0. */
function row(attempt: number, from: TaskLogView['fromStatus'], to: TaskLogView['toStatus'], ms: number, detail: unknown = null): TaskLogView {
  return { id: String(++seq), attempt, fromStatus: from, toStatus: to, message: '', detail, nodeId: null, createdAt: at(ms) };
}

function task(over: Partial<TaskView>): TaskView {
  return {
    id: 't', stepKey: 'load', handler: 'builtin.flaky', status: 'success', attempt: 1, maxRetries: 2, timeoutSeconds: 300, payload: {}, output: null, error: null,
    exitCode: null, resourceKey: null, lockedBy: null, leaseUntil: null, timedOutAt: null, scheduleAt: at(0), startedAt: null, completedAt: null,
    pendingParents: 0, readyAt: null, parents: [], children: [], blockedBy: null, operatorAttempts: 0, noLiveWorker: null, logs: [], ...over,
  };
}

/** A flaky task: attempt 1 failed (claimed at +10, started at +15, ended at +110), retried after a 1 s backoff, attempt 2 succeeded. */
const retried = task({
  status: 'success',
  attempt: 2,
  scheduleAt: at(1_110),
  startedAt: at(1_130),
  completedAt: at(1_200),
  logs: [
    row(1, null, 'pending', 0),
    row(1, 'pending', 'running', 10),
    row(1, 'running', 'failed', 110, { error: 'boom', durationMs: 95 }),
    row(2, 'failed', 'pending', 110, { retryAt: at(1_110), delayMs: 1_000 }),
    row(2, 'pending', 'running', 1_120),
    row(2, 'running', 'success', 1_200, { durationMs: 70 }),
  ],
});
const opts = { currentReady: T0 + 1_110, slot: T0, parentEnds: [], now: null };

describe('taskAttempts', () => {
  it('draws every attempt of a retried task: the earlier one from its log, the current one from the task row', () => {
    expect(taskAttempts(retried, opts)).toEqual([
      { attempt: 1, ready: T0, start: T0 + 15, end: T0 + 110, outcome: 'failed', current: false, label: 'attempt 1 of 3' },
      { attempt: 2, ready: T0 + 1_110, start: T0 + 1_130, end: T0 + 1_200, outcome: 'success', current: true, label: 'attempt 2 of 3' },
    ]);
  });

  it('takes an earlier attempt\'s start from its last claim when its end row has no duration; a hand-back ends no attempt', () => {
    const t = task({
      status: 'running', attempt: 2, maxRetries: 1, startedAt: at(2_000), scheduleAt: at(1_500),
      logs: [
        row(1, null, 'pending', 0),
        row(1, 'pending', 'running', 10),
        row(1, 'running', 'pending', 20, { presumedDead: true }),
        row(1, 'pending', 'running', 30),
        row(1, 'running', 'timeout', 900),
        row(2, 'timeout', 'pending', 900, { retryAt: at(1_500), delayMs: 600 }),
        row(2, 'pending', 'running', 2_000),
      ],
    });
    const a = taskAttempts(t, { ...opts, currentReady: T0 + 1_500, now: null });
    expect(a.map((x) => [x.attempt, x.start - T0, x.end == null ? null : x.end - T0, x.outcome])).toEqual([[1, 30, 900, 'timeout'], [2, 2_000, null, 'running']]);
    // a running attempt ends at the browser's clock once there is one
    expect(taskAttempts(t, { ...opts, currentReady: T0 + 1_500, now: T0 + 2_500 })[1]!.end).toBe(T0 + 2_500);
  });

  it('names an operator\'s re-run with its split, and leaves out the current attempt while it has not started', () => {
    const t = task({
      status: 'pending', attempt: 2, maxRetries: 0, scheduleAt: at(5_000),
      logs: [
        row(1, null, 'pending', 0),
        row(1, 'pending', 'running', 5),
        row(1, 'running', 'failed', 50, { durationMs: 45 }),
        row(1, 'failed', 'dead', 50),
        row(2, 'dead', 'pending', 5_000, { actor: 'ops@example.com' }),
      ],
    });
    const a = taskAttempts(t, { ...opts, currentReady: T0 + 5_000 });
    expect(a).toHaveLength(1);
    expect(a[0]).toMatchObject({ attempt: 1, start: T0 + 5, end: T0 + 50, outcome: 'failed', label: 'attempt 1 of 1' });
    const started = taskAttempts({ ...t, status: 'success', startedAt: at(5_010), completedAt: at(5_020), operatorAttempts: 1 }, { ...opts, currentReady: T0 + 5_000 });
    expect(started.map((x) => x.label)).toEqual(['attempt 1 of 1', 'attempt 2 (1 automatic + 1 by operator)']);
  });

  it('an earlier attempt of a child re-opened with its parent was ready at the parent\'s end before its start, not at the re-open', () => {
    const parent = task({ stepKey: 'extract', attempt: 2, completedAt: at(3_000), logs: [row(1, 'running', 'success', 100, { durationMs: 90 }), row(2, 'running', 'success', 3_000, { durationMs: 500 })] });
    expect(attemptEnds(parent)).toEqual([T0 + 100, T0 + 3_000, T0 + 3_000]);
    const child = task({
      attempt: 3, readyAt: at(100), startedAt: at(3_050), completedAt: at(3_100), scheduleAt: at(2_000),
      logs: [
        row(1, null, 'pending', 0),
        row(1, 'running', 'failed', 300, { durationMs: 150 }),
        row(2, 'failed', 'pending', 300, { retryAt: at(400) }),
        row(2, 'running', 'success', 600, { durationMs: 100 }),
        row(3, 'success', 'pending', 2_000, { actor: 'ops@example.com' }),
        row(3, 'running', 'success', 3_100, { durationMs: 50 }),
      ],
    });
    const a = taskAttempts(child, { currentReady: T0 + 3_000, slot: T0, parentEnds: attemptEnds(parent), now: null });
    expect(a.map((x) => [x.attempt, x.ready - T0, x.start - T0])).toEqual([[1, 100, 150], [2, 400, 500], [3, 3_000, 3_050]]);
  });
});

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
  it('after a retry, starts the run\'s part at the first attempt and counts it as the run\'s Duration does', () => {
    const spans = taskAttempts(retried, opts);
    // the run started with attempt 1 and ended with attempt 2 (lib/engine/sql/run-outcome.ts)
    const run = { startedAt: at(15), finishedAt: at(1_200), durationMs: 1_185 };
    const span = timelineSpan(spans, run, null)!;
    expect(span).toEqual({ t0: T0, totalMs: 1_200, queuedMs: 15, ranMs: 1_185, ended: true });
    expect(timelineCaption(span, 'T')).toBe(
      "Waiting to be claimed (light), running (coloured), earlier attempts muted, from T: 1.20 s in all, 15 ms queued before the first task started + 1.19 s from that start to the run's end (the run's Duration)",
    );
  });

  it('reaches the run\'s end when the run ended after its last task (a finalisation of its own)', () => {
    const span = timelineSpan([{ ready: T0, start: T0 + 50, end: T0 + 300 }], { startedAt: at(50), finishedAt: at(340), durationMs: 290 }, null)!;
    expect(span).toMatchObject({ totalMs: 340, queuedMs: 50, ranMs: 290 });
  });

  it('counts a running run to now, and a run not marked running yet from its first attempt\'s start', () => {
    const spans = [{ ready: T0, start: T0 + 20, end: T0 + 500 }];
    const live = timelineSpan(spans, { startedAt: at(20), finishedAt: null, durationMs: null }, T0 + 500)!;
    expect(live).toEqual({ t0: T0, totalMs: 500, queuedMs: 20, ranMs: 480, ended: false });
    expect(timelineCaption(live, 'T')).toMatch(/\+ 480 ms from that start to now \(the run's Duration so far\)$/);
    expect(timelineSpan(spans, { startedAt: null, finishedAt: null, durationMs: null }, T0 + 500)).toEqual(live);
    const noClock = timelineSpan(spans, { startedAt: at(20), finishedAt: null, durationMs: null }, null)!;
    expect(noClock.ranMs).toBeNull();
    expect(timelineCaption(noClock, 'T')).toMatch(/: 500 ms in all, 20 ms queued before the first task started, running since$/);
  });

  it('says so while no task has started, and has nothing to show without times', () => {
    const run = { startedAt: null, finishedAt: null, durationMs: null };
    const span = timelineSpan([{ ready: T0, start: null, end: null }], run, null)!;
    expect(span).toEqual({ t0: T0, totalMs: 0, queuedMs: null, ranMs: null, ended: false });
    expect(timelineCaption(span, 'T')).toMatch(/: 0 ms in all, no task has started yet$/);
    expect(timelineSpan([], run, null)).toBeNull();
  });
});
