/**
 * The reaper's repair of stranded runs (lib/engine/settle-stranded-runs.ts): a batched DAG
 * completion commits its statement on its own, and the runs it did not move on are settled in
 * a second transaction (lib/engine/complete-task.ts completeDagBatch). A worker that dies in
 * between leaves the run open with nothing to move it; these tests leave runs exactly so (the
 * statement alone, no second transaction) and check that settleStrandedRuns ends them as the
 * whole completion would have, and leaves waiting runs alone.
 */
import { describe, expect, it } from 'vitest';
import { completeTask, settleStrandedRuns, triggerRun } from '../../lib/engine/index.ts';
import { completeDagTasksSql } from '../../lib/engine/sql/complete-dag-tasks.ts';
import { selectLastRun } from '../../lib/engine/sql/last-runs.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob, statusesOf } from './engine-fixtures.ts';

const t = useTestDatabase();

/** Completes `c` with the batched DAG statement only: what a worker that died right after it leaves. */
async function statementOnly(c: ClaimedTask, now: Date) {
  return completeDagTasksSql(t.db, {
    nodeId: NODE.nodeId, message: 'succeeded', jobFirst: false, bookStats: true,
    items: [{ taskId: c.id, runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, attempt: c.attempt, output: null, error: null, exitCode: null }],
  }, now);
}

const runOf = (id: string) => t.db.run.findUniqueOrThrow({ where: { id } });

describe('settleStrandedRuns', () => {
  it('a run whose row is old but whose last task completed just now is not stranded yet (its tasks changed)', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const [a] = await claim(t.db, at(10));
    await completeTask(t.db, { taskId: a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(15));
    const [b] = await claim(t.db, at(20));
    // b lasted 100 s; its completion statement writes b, not the run row (last written at the claim of a)
    await statementOnly(b!, at(100_000));
    // 30 s after: the worker's settling transaction may still be on its way
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(130_000))).toEqual([]);
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(161_000))).toEqual([{ runId: run.id, status: 'success' }]);
  });

  it('ends a run whose last task succeeded without the run being settled, and books its job, once it has been quiet', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const [a] = await claim(t.db, at(10));
    expect((await completeTask(t.db, { taskId: a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(15))).ready).toBe(1);
    const [b] = await claim(t.db, at(20));
    const [done] = await statementOnly(b!, at(30));
    expect(done).toMatchObject({ id: b!.id, runReady: 0 });
    expect((await runOf(run.id)).status).toBe('running');

    // not yet quiet for long enough: left alone
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(30_000))).toEqual([]);
    const settled = await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(120_000));
    expect(settled).toEqual([{ runId: run.id, status: 'success' }]);
    const r = await runOf(run.id);
    expect([r.status, r.finishedAt]).toEqual(['success', at(120_000)]);
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.successRuns, (await selectLastRun(t.db, job))?.status]).toEqual([1, 'success']);
    // nothing left to repair
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(240_000))).toEqual([]);
  });

  it('skips by design the on_failure children of a success that were left pending, then ends the run', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'a' }, { key: 'undo' }], edges: [{ from: 'a', to: 'undo', type: 'on_failure' }] });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const [a] = await claim(t.db, at(10));
    const [done] = await statementOnly(a!, at(20));
    expect(done).toMatchObject({ onFailureChildren: 1 });
    expect(await statusesOf(t.db, run.id)).toEqual({ a: 'success', undo: 'pending' });

    const settled = await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(120_000));
    expect(settled).toEqual([{ runId: run.id, status: 'success' }]);
    expect(await statusesOf(t.db, run.id)).toEqual({ a: 'success', undo: 'skipped' });
    const undo = await t.db.task.findFirstOrThrow({ where: { runId: run.id, stepKey: 'undo' } });
    expect(undo.error).toBeNull();
  });

  it('leaves alone a run queued behind a serial_execution gate and a run whose task is running', async () => {
    const serial = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'main' }] });
    const first = await triggerRun(t.db, { jobId: serial, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    const queued = await triggerRun(t.db, { jobId: serial, trigger: 'manual', triggeredBy: 'test', scheduledFor: at(1) }, at(1));
    expect(queued.outcome).toBe('queued');
    const [running] = await claim(t.db, at(10));
    expect(running!.runId).toBe(first.run.id);
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(600_000))).toEqual([]);
    expect((await runOf(queued.run.id)).status).toBe('pending');
  });
});
