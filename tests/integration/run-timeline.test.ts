/**
 * The run page's Timeline over what the engine really writes (docs/console.md "Run page"): each attempt of a retried
 * task is read back from task_logs (components/runs/run-gantt-model.ts taskAttempts) with the instants the task row
 * held while it was current, and the chart's part from the first start is the run's Duration (runDurationMs).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { getRun } from '../../lib/runs/get-run.ts';
import { attemptEnds, readyAt, taskAttempts, timelineSpan } from '../../components/runs/run-gantt-model.ts';
import type { RunView } from '../../lib/runs/run-view.ts';

const t = useTestDatabase();
const NODE = { nodeId: 'timeline-node', group: 'default', labels: {}, leaseSeconds: 3600 };
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

beforeAll(async () => {
  await offerHandlers(t, ['timeline.a', 'timeline.b']);
});

/** Claims the one task due at `ms` (it must exist) and ends it `took` ms after `started` (default: the claim) with `outcome`. */
async function attempt(handler: string, ms: number, took: number, outcome: 'success' | 'failed', started?: number) {
  const [task] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 1 }, at(ms));
  expect(task, `a ${handler} task is due at +${ms} ms`).toBeTruthy();
  const start = started ?? ms;
  await completeTask(t.db, { taskId: task!.id, attempt: task!.attempt, nodeId: NODE.nodeId, outcome, error: outcome === 'failed' ? 'boom' : undefined, startedAt: started === undefined ? undefined : at(start) }, at(start + took));
  return task!;
}

/** The chart's attempts of every task of `run`, as RunGantt computes them (no clock: the run ended). */
function chart(run: RunView) {
  const byKey = new Map(run.tasks.map((x) => [x.stepKey, x]));
  const slot = Date.parse(run.scheduledFor);
  return new Map(
    run.tasks.map((x) => [
      x.stepKey,
      taskAttempts(x, { currentReady: readyAt(x, byKey), slot, parentEnds: x.parents.flatMap((p) => attemptEnds(byKey.get(p.step)!)), now: null }),
    ]),
  );
}

describe('the Timeline of a retried task', () => {
  it('a one-step run: both attempts, the first where the run started, the chart\'s run part equal to its Duration', async () => {
    const job = await createJob(t.db, {
      key: 'timeline.one', name: 'one', schedule: { kind: 'manual' }, handler: 'timeline.a',
      policy: { maxRetries: 1, backoff: { baseSeconds: 1, factor: 2, maxSeconds: 60, jitter: 0 } },
    }, SYSTEM_ACTOR);
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: at(0) }, at(0));
    // claimed at +10, really started at +40 (a claim ahead), failed at +340; retried after the 1 s backoff
    await attempt('timeline.a', 10, 300, 'failed', 40);
    await attempt('timeline.a', 1_500, 200, 'success');

    const view = await getRun(t.db, run.id, SYSTEM_ACTOR);
    expect(view.status).toBe('success');
    const attempts = chart(view).get('main')!;
    expect(attempts.map((a) => ({ ...a, ready: a.ready - T0, start: a.start - T0, end: a.end! - T0 }))).toEqual([
      { attempt: 1, ready: 0, start: 40, end: 340, outcome: 'failed', current: false, label: 'attempt 1 of 2' },
      { attempt: 2, ready: 1_340, start: 1_500, end: 1_700, outcome: 'success', current: true, label: 'attempt 2 of 2' },
    ]);
    expect(attempts[0]!.start).toBe(Date.parse(view.startedAt!));
    const span = timelineSpan(attempts, view, null)!;
    expect(view.durationMs).toBe(1_660);
    expect(span).toEqual({ t0: T0, totalMs: 1_700, queuedMs: 40, ranMs: 1_660, ended: true });
  });

  it('a DAG: a child retried once after its parent, each attempt ready when it could be claimed', async () => {
    const job = await createJob(t.db, {
      key: 'timeline.dag', name: 'dag', schedule: { kind: 'manual' },
      steps: [{ key: 'extract', handler: 'timeline.a' }, { key: 'load', handler: 'timeline.b' }],
      edges: [{ from: 'extract', to: 'load', type: 'hard' }],
      policy: { maxRetries: 2, backoff: { baseSeconds: 2, factor: 2, maxSeconds: 60, jitter: 0 } },
    }, SYSTEM_ACTOR);
    const { run } = await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: at(0) }, at(0));
    await attempt('timeline.a', 0, 500, 'success');
    await attempt('timeline.b', 600, 100, 'failed');
    await attempt('timeline.b', 3_000, 250, 'success');

    const view = await getRun(t.db, run.id, SYSTEM_ACTOR);
    expect(view.status).toBe('success');
    const c = chart(view);
    expect(c.get('extract')!.map((a) => [a.attempt, a.ready - T0, a.start - T0, a.end! - T0, a.outcome])).toEqual([[1, 0, 0, 500, 'success']]);
    // load: ready when extract ended (+500), then after its 2 s backoff from the failure at +700
    expect(c.get('load')!.map((a) => [a.attempt, a.ready - T0, a.start - T0, a.end! - T0, a.outcome, a.current])).toEqual([
      [1, 500, 600, 700, 'failed', false],
      [2, 2_700, 3_000, 3_250, 'success', true],
    ]);
    const span = timelineSpan([...c.values()].flat(), view, null)!;
    expect(span).toMatchObject({ t0: T0, queuedMs: 0, ranMs: view.durationMs });
    expect(T0 + span.queuedMs! + span.ranMs!).toBe(Date.parse(view.finishedAt!));
  });
});
