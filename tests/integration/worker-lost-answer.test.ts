/**
 * Lost answers (docs/engine.md "Lost answers"): a claim, or a completion that hands the next
 * chain step to its worker, that commits after the worker stopped waiting for its answer. The
 * worker's client-side query timeout is real (TICKFLOW_DB_QUERY_TIMEOUT_MS 1000: the client gives
 * up after 2 s, lib/db-timeouts.ts), and so is the late commit: a deferred constraint trigger,
 * installed in this file's own database only, sleeps 3 s at the commit of the first statement
 * that moves a chosen task to running (outside the server's statement_timeout, which does not
 * cover the commit). The statement then commits after the worker gave it up, exactly as when the
 * server is frozen past the timeout. The worker never hears of the tasks it was given; without
 * the reconcile their leases expire and the reaper fails them ("lease expired: worker … presumed
 * dead") or hands held ones back as if the worker had died.
 */
import { describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import { insertJob as insertDagJob } from './engine-fixtures.ts';
import { testWorkerConfig, triggerOneTask, useWorkers, waitFor, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();

/** Every commit that moves a task whose step key is in test_slow_commit to running sleeps 3 s, once per key. */
const SLOW_COMMIT = `
CREATE TABLE IF NOT EXISTS test_slow_commit (step_key text PRIMARY KEY);
CREATE OR REPLACE FUNCTION test_slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = 'running' THEN
    DELETE FROM test_slow_commit WHERE step_key = NEW.step_key;
    IF FOUND THEN PERFORM pg_sleep(3); END IF;
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS test_slow_commit ON tasks;
CREATE CONSTRAINT TRIGGER test_slow_commit AFTER UPDATE OF status ON tasks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_slow_commit();`;

/** A worker whose client gives up on a statement after 2 s, with a 4 s lease and a reaper every 200 ms. */
function worker(over: Parameters<typeof testWorkerConfig>[1] = {}): Worker {
  const w = createWorker({
    config: testWorkerConfig(t.url, { roles: ['claim', 'reap'], dbQueryTimeoutMs: 1000, leaseSeconds: 4, heartbeatMs: 500, reapMs: 200, ...over }),
  });
  workers.push(w);
  return w;
}

async function logsOf(taskId: string) {
  return t.db.taskLog.findMany({ where: { taskId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** The task's history shows a lost claim handed back on attempt 1, never reaped, and one run of its handler. */
async function expectHandedBackAndRunOnce(w: Worker, taskId: string): Promise<void> {
  const task = await waitForFinalTask(t.db, taskId, 30_000);
  expect(task).toMatchObject({ status: 'success', attempt: 1 });
  const logs = await logsOf(taskId);
  const messages = logs.map((l) => l.message ?? '');
  expect(messages.filter((m) => m.startsWith(`claimed by ${w.nodeId}`))).toHaveLength(2);
  const back = logs.filter((l) => l.toStatus === 'pending' && (l.message ?? '').startsWith('handed back unstarted'));
  expect(back).toHaveLength(1);
  expect(back[0]).toMatchObject({ attempt: 1, fromStatus: 'running' });
  expect(back[0]!.message).toBe(`handed back unstarted by ${w.nodeId}: the worker never got the answer of the claim or hand-off that gave it the task (database timeout or lost connection); not started, same attempt`);
  expect(messages.some((m) => /lease expired|presumed dead|retries used up/.test(m))).toBe(false);
  // the handler ran once: one recorded completion of this task, attempt 1 (its answer may come
  // just after the database shows the task final)
  await waitFor(() => w.runner.completions.some((c) => c.taskId === taskId), 5_000, 'the completion to be answered');
  expect(w.runner.completions.filter((c) => c.taskId === taskId)).toEqual([{ taskId, attempt: 1, outcome: 'success', applied: true, late: false }]);
}

describe('a statement that assigns tasks and whose answer is lost', () => {
  it('a claim that commits after the worker gave up on it: the task is handed back on the same attempt and runs once, the reaper never fails it', async () => {
    await t.pool.query(SLOW_COMMIT);
    const key = 'lost-claim';
    await t.pool.query('INSERT INTO test_slow_commit VALUES ($1)', [key]);
    const taskId = await triggerOneTask(t.db, { steps: [{ key, handler: 'builtin.noop' }], maxRetries: 0 });
    const w = worker();
    await w.start();
    await expectHandedBackAndRunOnce(w, taskId);
    // it ran promptly: handed back within a few seconds after the late commit, well before the
    // reaper could act on the expired lease (4 s lease + 4 s of reachability)
    const logs = await logsOf(taskId);
    const claimed = logs.find((l) => l.toStatus === 'running')!.createdAt.getTime();
    const back = logs.find((l) => l.toStatus === 'pending')!.createdAt.getTime();
    expect(back - claimed).toBeLessThan(8_000);
  }, 45_000);

  it('prefetched (held) tasks of a lost claim go back as not started by this worker, not as presumed dead', async () => {
    await t.pool.query(SLOW_COMMIT);
    await t.pool.query('INSERT INTO test_slow_commit VALUES ($1)', ['held-a']);
    // one slot, two per slot: the claim takes both, one starts, one is held for the slot
    const a = await triggerOneTask(t.db, { steps: [{ key: 'held-a', handler: 'builtin.noop' }], maxRetries: 0 });
    const b = await triggerOneTask(t.db, { steps: [{ key: 'held-b', handler: 'builtin.noop' }], maxRetries: 0 });
    const w = worker({ concurrency: 1, prefetchMultiplier: 2 });
    await w.start();
    await expectHandedBackAndRunOnce(w, a);
    await expectHandedBackAndRunOnce(w, b);
    const claims = await t.db.taskLog.findMany({ where: { taskId: { in: [a, b] }, toStatus: 'running' }, orderBy: { createdAt: 'asc' } });
    // both came from one claim (the same instant), one of them held
    expect(claims[0]!.createdAt.getTime()).toBe(claims[1]!.createdAt.getTime());
  }, 45_000);

  it('while the worker watches for a late commit, the tasks it knows are never handed back: one running through the watch, one claimed during it', async () => {
    await t.pool.query(SLOW_COMMIT);
    await t.pool.query('INSERT INTO test_slow_commit VALUES ($1)', ['lost']);
    const lost = await triggerOneTask(t.db, { steps: [{ key: 'lost', handler: 'builtin.noop' }], maxRetries: 0 });
    const w = worker();
    await w.start();
    // triggered once the lost claim is in its commit (its tasks chosen), so the next claim, after
    // the worker gave up on that one, takes it: its own claim, answered
    await waitFor(async () => (await t.pool.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep'`)).rowCount, 10_000, 'the lost claim sleeping in its commit');
    const long = await triggerOneTask(t.db, { steps: [{ key: 'long', handler: 'builtin.sleep', payload: { ms: 6000 } }], maxRetries: 0 });
    await expectHandedBackAndRunOnce(w, lost);
    // claimed after the hand-back, in the watch (a lease period from the failure, reconciling every 2 s)
    const later = await triggerOneTask(t.db, { steps: [{ key: 'later', handler: 'builtin.sleep', payload: { ms: 3000 } }], maxRetries: 0 });
    for (const id of [long, later]) {
      expect(await waitForFinalTask(t.db, id, 30_000)).toMatchObject({ status: 'success', attempt: 1 });
      const logs = await logsOf(id);
      expect(logs.filter((l) => l.toStatus === 'running')).toHaveLength(1);
      expect(logs.some((l) => l.toStatus === 'pending' && l.fromStatus === 'running')).toBe(false);
    }
  }, 60_000);

  it('a hand-off whose completion commits after the worker gave up on it: the next step is handed back and runs once', async () => {
    await t.pool.query(SLOW_COMMIT);
    await t.pool.query('INSERT INTO test_slow_commit VALUES ($1)', ['second']);
    const jobId = await insertDagJob(t.db, {
      steps: [{ key: 'first', handler: 'builtin.noop' }, { key: 'second', handler: 'builtin.noop' }],
      edges: [{ from: 'first', to: 'second' }],
    });
    const w = worker({ concurrency: 2 });
    await w.start();
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    const second = (await t.db.task.findFirstOrThrow({ where: { runId: run.id, stepKey: 'second' } })).id;
    await expectHandedBackAndRunOnce(w, second);
    // the first claim of `second` was the hand-off of `first`'s success: the same statement, the same instant
    const first = (await t.db.task.findFirstOrThrow({ where: { runId: run.id, stepKey: 'first' } })).id;
    const succeeded = (await logsOf(first)).find((l) => l.toStatus === 'success')!;
    const claimedBy = (await logsOf(second)).find((l) => l.toStatus === 'running')!;
    expect(claimedBy.createdAt.getTime()).toBe(succeeded.createdAt.getTime());
    await waitFor(async () => (await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === 'success', 10_000, 'the run to succeed');
  }, 45_000);
});
