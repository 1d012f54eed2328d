/**
 * Join tasks (lib/engine/sql/release-joins.ts, docs/engine.md "Join tasks"): a task with several
 * parents is not decremented by each parent's end; it is released by a statement that sees all
 * of them ended as their edges ask, after the ends committed. These tests cover each way a
 * parent can end (a worker's batch, the general path, a failure through a soft or on_failure
 * edge, an operator's mark success), two releases racing for one join, and a worker that died
 * between its batch's commit and the release (the stranded-run sweep releases the join).
 */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { claimTasks, completeTask, completeTasks, markTaskSuccess, releaseTasks, retryTask, settleStrandedRuns, triggerRun } from '../../lib/engine/index.ts';
import { completeDagTasksSql } from '../../lib/engine/sql/complete-dag-tasks.ts';
import { shareRuns } from '../../lib/engine/sql/lock-job-row.ts';
import { releaseJoinTasks } from '../../lib/engine/sql/release-joins.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { createSqlPool } from '../../lib/sql-pool.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob, statusesOf, tasksOf, type JobSpec } from './engine-fixtures.ts';

const t = useTestDatabase();

const fire = async (jobId: string) => (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0)).run;
const success = (c: ClaimedTask) => ({ taskId: c.id, attempt: c.attempt, nodeId: NODE.nodeId, outcome: 'success' as const, onlyTask: c.onlyTask });
const claimed = async (runId: string, now: Date) => (await claim(t.db, now, { limit: 1000 })).filter((c) => c.runId === runId);
const byStep = (cs: ClaimedTask[]) => Object.fromEntries(cs.map((c) => [c.stepKey, c]));

/** Completes `c` with the batched DAG statement alone: what a worker that died right after its commit leaves. */
const statementOnly = (c: ClaimedTask, now: Date) => completeDagTasksSql(t.db, {
  nodeId: NODE.nodeId, message: 'succeeded', jobFirst: false, bookStats: true,
  items: [{ taskId: c.id, runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, attempt: c.attempt, output: null, error: null, exitCode: null }],
}, now);

/** a and b, the roots, both lead into j through the given edge types. */
const join = (aType: 'hard' | 'soft' | 'on_failure', bType: 'hard' | 'soft' | 'on_failure' = 'hard'): JobSpec => ({
  steps: [{ key: 'a', maxRetries: 0 }, { key: 'b', maxRetries: 0 }, { key: 'j' }],
  edges: [{ from: 'a', to: 'j', type: aType }, { from: 'b', to: 'j', type: bType }],
});

describe('a join task waits for every parent and is released once', () => {
  it('two batches each ending one parent: the first leaves j waiting untouched, the second releases it; a one-parent child is released by its parent at once', async () => {
    const jobId = await insertJob(t.db, {
      steps: ['a', 'b', 'j', 'c'].map((key) => ({ key })),
      edges: [{ from: 'a', to: 'j' }, { from: 'b', to: 'j' }, { from: 'a', to: 'c' }],
    });
    const run = await fire(jobId);
    const { a, b } = byStep(await claimed(run.id, at(10)));
    const [ra] = (await completeTasks(t.db, [success(a!)], at(20))).map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(ra).toMatchObject({ applied: true, ready: 1 }); // c
    const after = await tasksOf(t.db, run.id);
    expect([after.j!.pendingParents, after.c!.pendingParents]).toEqual([2, 0]);
    const [rb] = (await completeTasks(t.db, [success(b!)], at(30))).map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(rb).toMatchObject({ applied: true, ready: 1 }); // j
    const j = (await t.pool.query(`SELECT pending_parents, ready_at FROM tasks WHERE run_id = $1 AND step_key = 'j'`, [run.id])).rows[0];
    expect(j).toEqual({ pending_parents: 0, ready_at: at(30) });
    expect((await claimed(run.id, at(40))).map((c) => c.stepKey).sort()).toEqual(['c', 'j']);
  });

  it('the general path (one completion at a time, the run held) releases a join after its last parent', async () => {
    const run = await fire(await insertJob(t.db, join('hard')));
    const { a, b } = byStep(await claimed(run.id, at(10)));
    // a failed attempt with a retry left takes the general path; so does its retry's success
    await t.pool.query(`UPDATE tasks SET max_retries = 1 WHERE id = $1`, [a!.id]);
    expect(await completeTask(t.db, { taskId: a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'x' }, at(20)))
      .toMatchObject({ task: { status: 'pending' } });
    await completeTask(t.db, { taskId: b!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(30));
    expect((await tasksOf(t.db, run.id)).j!.pendingParents).toBe(2);
    const [a2] = (await claimed(run.id, at(60_000)));
    expect(a2).toMatchObject({ stepKey: 'a', attempt: 2 });
    // the completion's result counts the join it released (the worker claims at once on it)
    expect(await completeTask(t.db, { taskId: a2!.id, attempt: 2, nodeId: NODE.nodeId, outcome: 'success' }, at(61_000)))
      .toMatchObject({ applied: true, ready: 1 });
    expect((await tasksOf(t.db, run.id)).j!.pendingParents).toBe(0);
  });

  it('a batch inside a caller\'s transaction (the runs held FOR UPDATE) releases the join in that transaction, and every result says so', async () => {
    const run = await fire(await insertJob(t.db, join('hard')));
    const { a, b } = byStep(await claimed(run.id, at(10)));
    const results = await t.db.$transaction((tx) => completeTasks(tx, [success(a!), success(b!)], at(20)));
    // one batch: both results carry the run's released join (completing one by one, the first would not)
    expect(results.map((r) => (r as PromiseFulfilledResult<unknown>).value)).toEqual([
      expect.objectContaining({ applied: true, ready: 1 }), expect.objectContaining({ applied: true, ready: 1 }),
    ]);
    expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 0 });
  });

  it('a soft parent that ends dead and a hard parent that succeeds release the join; a dead hard parent skips it', async () => {
    const soft = await fire(await insertJob(t.db, join('soft')));
    const s = byStep(await claimed(soft.id, at(10)));
    await completeTasks(t.db, [success(s.b!)], at(20));
    await completeTask(t.db, { taskId: s.a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(30));
    expect(await statusesOf(t.db, soft.id)).toEqual({ a: 'dead', b: 'success', j: 'pending' });
    expect((await tasksOf(t.db, soft.id)).j!.pendingParents).toBe(0);

    const hard = await fire(await insertJob(t.db, join('hard')));
    const h = byStep(await claimed(hard.id, at(10)));
    await completeTasks(t.db, [success(h.b!)], at(20));
    await completeTask(t.db, { taskId: h.a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(30));
    expect(await statusesOf(t.db, hard.id)).toEqual({ a: 'dead', b: 'success', j: 'skipped' });
  });

  it('an on_failure edge into a join: released when that parent ends dead, skipped by design when it succeeds', async () => {
    const taken = await fire(await insertJob(t.db, join('on_failure')));
    const x = byStep(await claimed(taken.id, at(10)));
    await completeTasks(t.db, [success(x.b!)], at(20));
    expect((await tasksOf(t.db, taken.id)).j!.pendingParents).toBe(2);
    await completeTask(t.db, { taskId: x.a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(30));
    expect((await tasksOf(t.db, taken.id)).j).toMatchObject({ status: 'pending', pendingParents: 0 });

    const notTaken = await fire(await insertJob(t.db, join('on_failure')));
    const y = byStep(await claimed(notTaken.id, at(10)));
    await completeTasks(t.db, [success(y.a!), success(y.b!)], at(20));
    expect(await statusesOf(t.db, notTaken.id)).toEqual({ a: 'success', b: 'success', j: 'skipped' });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: notTaken.id } })).status).toBe('success');
  });

  it('an operator marking the last parent success releases the join', async () => {
    const run = await fire(await insertJob(t.db, join('hard')));
    const { a, b } = byStep(await claimed(run.id, at(10)));
    await completeTasks(t.db, [success(b!)], at(20));
    await completeTask(t.db, { taskId: a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(30));
    expect((await statusesOf(t.db, run.id)).j).toBe('skipped');
    await markTaskSuccess(t.db, { taskId: a!.id, actor: 'admin', reason: 'fixed by hand' }, at(40));
    expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 0 });
    expect((await claimed(run.id, at(50))).map((c) => c.stepKey)).toEqual(['j']);
  });
});

describe('the release after a batch commits (release-joins.ts releaseJoinTasks)', () => {
  it('two releases racing for one join: the second neither waits for the first nor releases it again', async () => {
    const run = await fire(await insertJob(t.db, join('hard')));
    const { a, b } = byStep(await claimed(run.id, at(10)));
    await statementOnly(a!, at(20));
    await statementOnly(b!, at(20));
    const pool = createSqlPool(t.url, 2);
    try {
      let letFirstCommit!: () => void;
      const mayCommit = new Promise<void>((resolve) => { letFirstCommit = resolve; });
      let firstReleased!: (n: Map<string, number>) => void;
      const firstDone = new Promise<Map<string, number>>((resolve) => { firstReleased = resolve; });
      const first = pool.$transaction(async (tx) => {
        await shareRuns(tx, [run.id], [T0]);
        firstReleased(await releaseJoinTasks(tx, { parentIds: [a!.id], weeks: [T0] }, at(30)));
        await mayCommit; // holds j's row until released below
      });
      expect(await firstDone).toEqual(new Map([[run.id, 1]]));
      // the second release (b's batch) sees j waiting in its snapshot, finds its row held: skipped at once
      const second = await pool.$transaction(async (tx) => {
        await shareRuns(tx, [run.id], [T0]);
        return releaseJoinTasks(tx, { parentIds: [b!.id], weeks: [T0] }, at(31));
      });
      expect(second).toEqual(new Map());
      letFirstCommit();
      await first;
    } finally {
      await pool.$disconnect();
    }
    const j = (await t.pool.query(`SELECT pending_parents, ready_at, updated_at FROM tasks WHERE run_id = $1 AND step_key = 'j'`, [run.id])).rows[0];
    expect(j).toEqual({ pending_parents: 0, ready_at: at(30), updated_at: at(30) });
  });

  it('a worker that died between its batch\'s commit and the release: the join waits, and the stranded-run sweep releases it', async () => {
    const run = await fire(await insertJob(t.db, join('hard')));
    const { a, b } = byStep(await claimed(run.id, at(10)));
    await statementOnly(a!, at(20));
    await statementOnly(b!, at(20));
    expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 2 });
    expect(await claimed(run.id, at(30))).toEqual([]);
    // not quiet long enough yet: left alone; then released, not ended as a deadlock
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(30_000))).toEqual([]);
    expect(await settleStrandedRuns(t.db, { quietSeconds: 60, limit: 10 }, at(90_000))).toEqual([{ runId: run.id, status: null }]);
    expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 0 });
    const [j] = await claimed(run.id, at(91_000));
    expect(j?.stepKey).toBe('j');
    const [rj] = (await completeTasks(t.db, [success(j!)], at(92_000))).map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(rj).toMatchObject({ applied: true, runStatus: 'success' });
  });
});

describe('an operator re-open of a parent that a running child had counted as done (run-graph.ts recountOutside)', () => {
  // x -> a (hard), a -> j (soft), optionally y -> j (hard); x and a have no retries, j one
  const spec = (withY: boolean): JobSpec => ({
    steps: [{ key: 'x', maxRetries: 0 }, { key: 'a', maxRetries: 0 }, { key: 'j', maxRetries: 1 }, ...(withY ? [{ key: 'y' }] : [])],
    edges: [{ from: 'x', to: 'a' }, { from: 'a', to: 'j', type: 'soft' as const }, ...(withY ? [{ from: 'y', to: 'j' }] : [])],
  });

  for (const withY of [true, false]) {
    it(`${withY ? 'a join' : 'a task of one parent'}: its next attempt waits for the re-opened parent, and that parent's end releases it`, async () => {
      const run = await fire(await insertJob(t.db, spec(withY)));
      const first = byStep(await claimed(run.id, at(10)));
      await completeTask(t.db, { taskId: first.x!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(20));
      if (withY) await completeTasks(t.db, [success(first.y!)], at(30));
      expect(await statusesOf(t.db, run.id)).toMatchObject({ x: 'dead', a: 'skipped', j: 'pending' });
      const [j] = await claimed(run.id, at(40)); // a skipped satisfies the soft edge
      expect(j?.stepKey).toBe('j');

      await retryTask(t.db, first.x!.id, 'operator', at(50));
      expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'running', pendingParents: 1 });
      expect(await completeTask(t.db, { taskId: j!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'flaky' }, at(60)))
        .toMatchObject({ task: { status: 'pending', attempt: 2 } });
      // x is claimable again; j, after its backoff, is not: a has not run
      expect((await claimed(run.id, at(120_000))).map((c) => c.stepKey)).toEqual(['x']);
      const x2 = (await t.db.task.findFirstOrThrow({ where: { runId: run.id, stepKey: 'x' } }));
      await completeTask(t.db, { taskId: x2.id, attempt: x2.attempt, nodeId: NODE.nodeId, outcome: 'success' }, at(121_000));
      const [a2] = await claimed(run.id, at(122_000));
      expect(a2?.stepKey).toBe('a');
      // a fails for good: a soft parent's end releases j (no counter below zero)
      await completeTask(t.db, { taskId: a2!.id, attempt: a2!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom again' }, at(123_000));
      expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 0 });
      expect((await claimed(run.id, at(124_000))).map((c) => c.stepKey)).toEqual(['j']);
    });
  }
});

describe('a re-opened parent that ends while its child\'s attempt runs (retry-or-bury.ts recount)', () => {
  // p -> c (soft), optionally q -> c (soft): c a join; p without retries, c with one
  for (const withQ of [true, false]) {
    it(`${withQ ? 'a join' : 'a task of one parent'}: the child's next attempt is claimable after its backoff, not held for the parent's old count`, async () => {
      const run = await fire(await insertJob(t.db, {
        steps: [{ key: 'p', maxRetries: 0 }, { key: 'c', maxRetries: 1 }, ...(withQ ? [{ key: 'q' }] : [])],
        edges: [{ from: 'p', to: 'c', type: 'soft' as const }, ...(withQ ? [{ from: 'q', to: 'c', type: 'soft' as const }] : [])],
      }));
      const first = byStep(await claimed(run.id, at(10)));
      await completeTask(t.db, { taskId: first.p!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(20));
      if (withQ) await completeTasks(t.db, [success(first.q!)], at(25));
      const [c] = await claimed(run.id, at(30));
      expect(c?.stepKey).toBe('c');
      await retryTask(t.db, first.p!.id, 'operator', at(40));
      const [p2] = await claimed(run.id, at(50));
      expect(p2).toMatchObject({ stepKey: 'p', attempt: 2 });
      await completeTasks(t.db, [success(p2!)], at(60)); // p ends while c still runs
      expect(await completeTask(t.db, { taskId: c!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'flaky' }, at(70)))
        .toMatchObject({ task: { status: 'pending', attempt: 2 } });
      expect((await tasksOf(t.db, run.id)).c).toMatchObject({ status: 'pending', pendingParents: 0 });
      expect((await claimed(run.id, at(70_000))).map((x) => x.stepKey)).toEqual(['c']);
    });
  }
});

/**
 * p (no retries) -> c over a soft edge; p failed for good, so c was released, and c is claimed but
 * held (a prefetched task waiting for a slot: ClaimInput.startNow 0).
 */
async function heldChildOfDeadParent() {
  const run = await fire(await insertJob(t.db, {
    steps: [{ key: 'p', maxRetries: 0 }, { key: 'c' }], edges: [{ from: 'p', to: 'c', type: 'soft' as const }],
  }));
  const { p } = byStep(await claimed(run.id, at(10)));
  await completeTask(t.db, { taskId: p!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(20));
  const [c] = (await claimTasks(t.db, { ...NODE, limit: 10, startNow: 0 }, at(30))).filter((x) => x.runId === run.id);
  expect(c).toMatchObject({ stepKey: 'c', held: true });
  return { run, p: p!, c: c! };
}

describe('a held child handed back after its re-opened parent ended (release-tasks.ts recount)', () => {
  it('goes back to pending claimable, not held for the parent\'s old count', async () => {
    const { run, p, c } = await heldChildOfDeadParent();
    await retryTask(t.db, p.id, 'operator', at(40));
    const [p2] = await claimed(run.id, at(50));
    await completeTasks(t.db, [success(p2!)], at(60));
    expect(await releaseTasks(t.db, { nodeId: NODE.nodeId, tasks: [c], reason: 'worker stopping' }, at(70))).toBe(1);
    expect((await tasksOf(t.db, run.id)).c).toMatchObject({ status: 'pending', pendingParents: 0 });
    expect((await claimed(run.id, at(80))).map((x) => x.stepKey)).toEqual(['c']);
  });
});

describe('a hand-back racing an operator\'s re-open of the held task\'s parent (release-tasks.ts shareRunsOfTasks)', () => {
  it('waits for the re-open to commit and counts the re-opened parent: the child is not claimable before it', async () => {
    const { run, p, c } = await heldChildOfDeadParent();
    // The operator's retry of p has written (p pending again, c's counter raised) but not committed.
    let commit!: () => void;
    const gate = new Promise<void>((resolve) => (commit = resolve));
    let reopened!: () => void;
    const written = new Promise<void>((resolve) => (reopened = resolve));
    const retry = t.db.$transaction(async (tx) => {
      await retryTask(tx as unknown as typeof t.db, p.id, 'operator', at(40));
      reopened();
      await gate;
    }, { timeout: 20_000 });
    await written;
    const handBack = releaseTasks(t.db, { nodeId: NODE.nodeId, tasks: [c], reason: 'worker stopping' }, at(45));
    // the hand-back waits for the retry's locks
    await expect.poll(async () => (await t.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    )).rows[0].n, { timeout: 10_000 }).toBeGreaterThan(0);
    commit();
    await retry;
    expect(await handBack).toBe(1);
    expect((await tasksOf(t.db, run.id)).c).toMatchObject({ status: 'pending', pendingParents: 1 });
    expect((await claimed(run.id, at(50))).map((x) => x.stepKey)).toEqual(['p']);
  });
});

describe('workers are told of the steps a worker\'s batch made ready, after its commits (notify.ts notifyTasksReadyNow)', () => {
  it('a join released after the commit, and a child of one parent released by the batch, each send tickflow_tasks; a batch that readies nothing sends none', async () => {
    const listener = new pg.Client({ connectionString: t.url });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => { if (n.channel === 'tickflow_tasks') heard.push(n.payload ?? ''); });
    await listener.query('LISTEN tickflow_tasks');
    const settle = () => new Promise((r) => setTimeout(r, 300));
    try {
      const run = await fire(await insertJob(t.db, {
        steps: ['a', 'b', 'j', 'c'].map((key) => ({ key })),
        edges: [{ from: 'a', to: 'j' }, { from: 'b', to: 'j' }, { from: 'b', to: 'c' }],
      }));
      const { a, b } = byStep(await claimed(run.id, at(10)));
      await settle();
      heard.length = 0; // the trigger's own
      await completeTasks(t.db, [success(a!)], at(20)); // j still waits for b
      await settle();
      expect(heard).toEqual([]);
      await completeTasks(t.db, [success(b!)], at(30)); // c by the batch, j by the release after it: one notification
      await settle();
      expect(heard).toEqual(['']);
      expect((await claimed(run.id, at(40))).map((x) => x.stepKey).sort()).toEqual(['c', 'j']);
    } finally {
      await listener.end();
    }
  });
});
