/**
 * engine completeTasks for DAG steps: the successes of tasks of multi-task runs in one
 * transaction (sql/complete-dag-tasks.ts). A join step is released exactly once whether its
 * parents complete in the same batch or in different batches on different nodes at the same
 * time; runs end, job counters, task logs and handler stats are those of completing one by one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelRun, completeTask, completeTasks, triggerRun } from '../../lib/engine/index.ts';
import { DomainError } from '../../lib/errors.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { ensureHistoryPartitions } from '../../lib/system-jobs/history-partitions.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';
import { completeDagTasksSql, type DagTaskCompleted } from '../../lib/engine/sql/complete-dag-tasks.ts';
import { selectLastRun } from '../../lib/engine/sql/last-runs.ts';
import { settleDagBatch } from '../../lib/engine/complete-task.ts';
import { createSqlPool, HOT_PATH_SETTINGS, type SqlClient, type SqlPool } from '../../lib/sql-pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob, logsOf, tasksOf } from './engine-fixtures.ts';

let t: TestDatabase;
beforeAll(async () => { t = await createTestDatabase(); });
afterAll(async () => { await t.close(); });

const fire = async (jobId: string) => (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0)).run;
const success = (c: ClaimedTask, nodeId = NODE.nodeId) => ({ taskId: c.id, attempt: c.attempt, nodeId, outcome: 'success' as const, onlyTask: c.onlyTask });
const claimRun = async (runId: string, now: Date, nodeId = NODE.nodeId, handlers = ['dag.batch']) =>
  (await claim(t.db, now, { nodeId, handlers, limit: 1000 })).filter((c) => c.runId === runId);
const values = (r: PromiseSettledResult<unknown>[]) => r.map((x) => {
  if (x.status === 'rejected') throw x.reason;
  return x.value;
});

describe('completeTasks with DAG steps', () => {
  it('a join step whose parents complete in the same batch is released once; the run ends with its last batch', async () => {
    // a -> (b, c, e) -> d: d has three parents, all completed in one batch
    const jobId = await insertJob(t.db, {
      steps: ['a', 'b', 'c', 'e', 'd'].map((key) => ({ key, handler: 'dag.batch' })),
      edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'a', to: 'e' }, { from: 'b', to: 'd' }, { from: 'c', to: 'd' }, { from: 'e', to: 'd' }],
    });
    const run = await fire(jobId);
    const [a] = await claimRun(run.id, at(10));
    const [ra] = values(await completeTasks(t.db, [success(a!)], at(20)));
    expect(ra).toMatchObject({ applied: true, task: { id: a!.id, status: 'success' }, ready: 3 });

    const mid = await claimRun(run.id, at(30));
    expect(mid.map((c) => c.stepKey).sort()).toEqual(['b', 'c', 'e']);
    // a repeated input in the same batch meets the compare-and-set: applied once
    const res = values(await completeTasks(t.db, [...mid.map((c) => success(c)), success(mid[0]!)], at(50)));
    expect(res.slice(0, 3)).toEqual(mid.map((c) => expect.objectContaining({ applied: true, task: expect.objectContaining({ id: c.id, status: 'success' }), ready: 1 })));
    expect(res[3]).toEqual({ applied: false });
    const tasks = await tasksOf(t.db, run.id);
    expect(tasks.d).toMatchObject({ status: 'pending', pendingParents: 0 });

    const [d, ...more] = await claimRun(run.id, at(60));
    expect([d?.stepKey, more.length]).toEqual(['d', 0]);
    const [rd] = values(await completeTasks(t.db, [success(d!)], at(90)));
    expect(rd).toMatchObject({ applied: true, runStatus: 'success' });
    expect(rd).not.toHaveProperty('ready');

    const runRow = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(runRow).toMatchObject({ status: 'success', durationMs: 80 });
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.successRuns, (await selectLastRun(t.db, job))?.status]).toEqual([1, 'success']);
    for (const c of mid) {
      const logs = await logsOf(t.db, c.id);
      expect(logs.map((l) => `${l.fromStatus}>${l.toStatus}`)).toEqual(['null>pending', 'pending>running', 'running>success']);
      expect(logs[2]!.detail).toEqual({ durationMs: 20 });
    }
    const [stats] = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler: 'dag.batch' } }));
    // durations 10 (a) + 3 x 20 (b, c, e) + 30 (d); lateness of first attempts, each from when the
    // step became ready: a 10 after the slot, b, c, e 10 after a's success (20), d 10 after theirs (50)
    expect([stats!.success, Number(stats!.totalDurationMs), stats!.latenessCount, Number(stats!.totalLatenessMs)]).toEqual([5, 100, 5, 50]);
    const date = T0.toISOString().slice(0, 10);
    expect((await rebuildStats(t.db, { from: date, to: date, timeZone: 'UTC' })).drift).toEqual([]);
  });

  it('parents of a join step completing at the same time on two nodes, in separate batches, release it exactly once', async () => {
    // 20 runs (of 20 jobs) of (p1, p2, p3) -> j, raced: node-a completes p1 and p2 of every run in
    // one batch while node-b completes every p3 in another, concurrently
    const jobIds: string[] = [];
    for (let i = 0; i < 20; i++) {
      jobIds.push(await insertJob(t.db, {
        steps: ['p1', 'p2', 'p3', 'j'].map((key) => ({ key, handler: 'dag.race' })),
        edges: [{ from: 'p1', to: 'j' }, { from: 'p2', to: 'j' }, { from: 'p3', to: 'j' }],
      }));
    }
    const runs = [];
    for (const jobId of jobIds) runs.push(await fire(jobId));
    const runIds = new Set(runs.map((r) => r.id));
    const claimedA = (await claim(t.db, at(10), { nodeId: 'node-a', handlers: ['dag.race'], limit: 1000 })).filter((c) => runIds.has(c.runId));
    expect(claimedA).toHaveLength(60);
    // hand the p3 tasks to node-b (a claim by node-b of exactly those)
    const p3 = claimedA.filter((c) => c.stepKey === 'p3');
    await t.pool.query(`UPDATE tasks SET locked_by = 'node-b' WHERE id = ANY($1::uuid[])`, [p3.map((c) => c.id)]);
    const [ra, rb] = await Promise.all([
      completeTasks(t.db, claimedA.filter((c) => c.stepKey !== 'p3').map((c) => success(c, 'node-a')), at(40)),
      completeTasks(t.db, p3.map((c) => success(c, 'node-b')), at(40)),
    ]);
    expect([...values(ra), ...values(rb)].every((v) => (v as { applied: boolean }).applied)).toBe(true);
    // every join step: ready once, never below zero; exactly one per run claimable, once
    const joins = await t.pool.query(`SELECT pending_parents, status::text FROM tasks WHERE step_key = 'j' AND run_id = ANY($1::uuid[])`, [[...runIds]]);
    expect(joins.rows).toEqual(runs.map(() => ({ pending_parents: 0, status: 'pending' })));
    const js = (await claim(t.db, at(50), { handlers: ['dag.race'], limit: 1000 })).filter((c) => runIds.has(c.runId));
    expect(js.map((c) => c.stepKey)).toEqual(runs.map(() => 'j'));
    expect(new Set(js.map((c) => c.runId)).size).toBe(20);
    const done = values(await completeTasks(t.db, js.map((c) => success(c)), at(60)));
    expect(done.map((v) => (v as { runStatus?: string }).runStatus)).toEqual(runs.map(() => 'success'));
    const jobs = await t.db.job.findMany({ where: { id: { in: jobIds } } });
    expect(jobs.map((j) => j.successRuns)).toEqual(jobIds.map(() => 1));
    const date = T0.toISOString().slice(0, 10);
    expect((await rebuildStats(t.db, { from: date, to: date, timeZone: 'UTC' })).drift).toEqual([]);
  });

  it('an on_failure child of a success is skipped by design and the run ends in the same batch', async () => {
    // a -> b (hard), a -> cleanup (on_failure): both a's success and b's success in one batch each
    const jobId = await insertJob(t.db, {
      steps: [{ key: 'a', handler: 'dag.onf' }, { key: 'b', handler: 'dag.onf' }, { key: 'cleanup', handler: 'dag.onf' }],
      edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'cleanup', type: 'on_failure' }],
    });
    const run = await fire(jobId);
    const [a] = await claimRun(run.id, at(10), NODE.nodeId, ['dag.onf']);
    const [ra] = values(await completeTasks(t.db, [success(a!)], at(20)));
    expect(ra).toMatchObject({ applied: true, ready: 1 });
    expect((await tasksOf(t.db, run.id)).cleanup).toMatchObject({ status: 'skipped', error: null });
    const [b] = await claimRun(run.id, at(30), NODE.nodeId, ['dag.onf']);
    const [rb] = values(await completeTasks(t.db, [success(b!)], at(40)));
    expect(rb).toMatchObject({ applied: true, runStatus: 'success' });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('success');
  });

  it('serial_execution: the run ending in a batch releases the next queued run', async () => {
    const jobId = await insertJob(t.db, {
      blockStrategy: 'serial_execution',
      steps: [{ key: 'x', handler: 'dag.serial' }, { key: 'y', handler: 'dag.serial' }],
      edges: [{ from: 'x', to: 'y' }],
    });
    const first = await fire(jobId);
    const second = await fire(jobId);
    for (const step of ['x', 'y']) {
      const got = await claimRun(first.id, at(10), NODE.nodeId, ['dag.serial']);
      expect(got.map((c) => c.stepKey)).toEqual([step]);
      values(await completeTasks(t.db, got.map((c) => success(c)), at(20)));
    }
    expect((await t.db.run.findUniqueOrThrow({ where: { id: first.id } })).status).toBe('success');
    const next = await claimRun(second.id, at(30), NODE.nodeId, ['dag.serial']);
    expect(next.map((c) => c.stepKey)).toEqual(['x']);
  });

  it('a batch whose runs straddle a Monday (two weekly partitions) completes in one call', async () => {
    // Sunday 2027-02-07 23:59:59 and Monday 2027-02-08 00:00:01 UTC: two weekly partitions.
    const sunday = new Date('2027-02-07T23:59:59.000Z');
    const monday = new Date('2027-02-08T00:00:01.000Z');
    await ensureHistoryPartitions(t.db, sunday, { from: sunday, to: new Date('2027-02-15T00:00:00.000Z') });
    const jobs = await Promise.all(['sun', 'mon'].map(() => insertJob(t.db, {
      steps: [{ key: 'a', handler: 'dag.week' }, { key: 'b', handler: 'dag.week' }], edges: [{ from: 'a', to: 'b' }],
    })));
    const runs = [
      (await triggerRun(t.db, { jobId: jobs[0]!, trigger: 'manual', triggeredBy: 'test', scheduledFor: sunday }, T0)).run,
      (await triggerRun(t.db, { jobId: jobs[1]!, trigger: 'manual', triggeredBy: 'test', scheduledFor: monday }, T0)).run,
    ];
    const parts = await t.pool.query<{ p: string }>(`SELECT tableoid::regclass::text AS p FROM tasks WHERE run_id = ANY($1) ORDER BY scheduled_for`, [runs.map((r) => r.id)]);
    expect([...new Set(parts.rows.map((r) => r.p))]).toEqual(['tasks_w20270201', 'tasks_w20270208']);

    const roots = (await claim(t.db, at(10), { nodeId: NODE.nodeId, handlers: ['dag.week'], limit: 10 }));
    expect(roots.map((c) => c.scheduledFor.toISOString()).sort()).toEqual([sunday.toISOString(), monday.toISOString()]);
    const res = values(await completeTasks(t.db, roots.map((c) => success(c)), at(20)));
    expect(res).toEqual(roots.map(() => expect.objectContaining({ applied: true, ready: 1 })));

    const leaves = await claim(t.db, at(30), { nodeId: NODE.nodeId, handlers: ['dag.week'], limit: 10 });
    expect(leaves).toHaveLength(2);
    const right = values(await completeTasks(t.db, leaves.map((c) => success(c)), at(50)));
    expect(right).toEqual(leaves.map(() => expect.objectContaining({ applied: true, runStatus: 'success' })));
  });
});

describe('hand-off: a success claims the step it makes ready for its own node (complete-dag-tasks.ts)', () => {
  const handoff = { handlers: ['dag.hand'], group: 'default', labels: {}, leaseSeconds: 30 };
  const withHandoff = (c: ClaimedTask) => ({ ...success(c), runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, handoff });

  it('a chain step is claimed in the completion of its parent: running, leased, logged, returned to start; nothing left to claim', async () => {
    const jobId = await insertJob(t.db, { steps: ['a', 'b', 'c'].map((key) => ({ key, handler: 'dag.hand' })), edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
    const run = await fire(jobId);
    const [a] = await claimRun(run.id, at(10), NODE.nodeId, ['dag.hand']);
    const [ra] = values(await completeTasks(t.db, [withHandoff(a!)], at(20)));
    expect(ra).toMatchObject({ applied: true, task: { id: a!.id, status: 'success' } });
    expect(ra).not.toHaveProperty('ready');
    const [b] = (ra as { handedOff: ClaimedTask[] }).handedOff;
    // ready at its parent's success, the instant its lateness counts from
    expect(b).toMatchObject({ stepKey: 'b', runId: run.id, jobId, attempt: 1, onlyTask: false, startedAt: at(20), leaseUntil: at(30_020), latenessFrom: at(20) });
    expect(b!.scheduledFor).toEqual(a!.scheduledFor);
    const row = await t.db.task.findUniqueOrThrow({ where: { id: b!.id } });
    expect(row).toMatchObject({ status: 'running', lockedBy: NODE.nodeId, startedAt: at(20), pendingParents: 0 });
    expect((await logsOf(t.db, b!.id)).map((l) => [l.fromStatus, l.toStatus, l.message])).toEqual([
      [null, 'pending', 'created'], ['pending', 'running', `claimed by ${NODE.nodeId}`],
    ]);
    // nothing of the run is left for a claim
    expect(await claimRun(run.id, at(25), NODE.nodeId, ['dag.hand'])).toEqual([]);
    const [rb] = values(await completeTasks(t.db, [withHandoff(b!)], at(40)));
    const [c] = (rb as { handedOff: ClaimedTask[] }).handedOff;
    const [rc] = values(await completeTasks(t.db, [withHandoff(c!)], at(60)));
    expect(rc).toMatchObject({ applied: true, runStatus: 'success' });
    expect(rc).not.toHaveProperty('handedOff');
    const r = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([r.status, r.durationMs]).toEqual(['success', 50]);
  });

  it('no hand-off for a fan-out, a handler the node lacks, a resource key or consistent_hash routing: those steps are left to the claim', async () => {
    const cases = [
      { steps: [{ key: 'p', handler: 'dag.hand' }, { key: 'x', handler: 'dag.hand' }, { key: 'y', handler: 'dag.hand' }], edges: [{ from: 'p', to: 'x' }, { from: 'p', to: 'y' }], ready: 2 },
      { steps: [{ key: 'p', handler: 'dag.hand' }, { key: 'x', handler: 'dag.other' }], edges: [{ from: 'p', to: 'x' }], ready: 1 },
      { steps: [{ key: 'p', handler: 'dag.hand' }, { key: 'x', handler: 'dag.hand', resourceKey: 'rk-hand' }], edges: [{ from: 'p', to: 'x' }], ready: 1 },
      { routingStrategy: 'consistent_hash' as const, steps: [{ key: 'p', handler: 'dag.hand' }, { key: 'x', handler: 'dag.hand' }], edges: [{ from: 'p', to: 'x' }], ready: 1 },
    ];
    // the only live node, so it owns every consistent_hash key: the claim gives it such tasks, the hand-off does not
    await t.pool.query(`INSERT INTO worker_nodes (node_id, name, host, pid, handlers, last_heartbeat_at) VALUES ($1, 'a', 'h', 1, '{dag.hand}', $2)`, [NODE.nodeId, at(0)]);
    for (const { ready, ...spec } of cases) {
      const run = await fire(await insertJob(t.db, spec));
      const [p] = await claimRun(run.id, at(10), NODE.nodeId, ['dag.hand']);
      const [rp] = values(await completeTasks(t.db, [withHandoff(p!)], at(20)));
      expect(rp).toMatchObject({ applied: true, ready });
      expect(rp).not.toHaveProperty('handedOff');
      const open = await t.db.task.findMany({ where: { runId: run.id, status: 'pending', pendingParents: 0 } });
      expect(open).toHaveLength(ready);
    }
    await t.pool.query(`DELETE FROM worker_nodes WHERE node_id = $1`, [NODE.nodeId]);
  });

  it('a join step is not handed off: the release after its last parent\'s batch leaves it to the claim, and says so', async () => {
    const jobId = await insertJob(t.db, {
      steps: ['a', 'b', 'j'].map((key) => ({ key, handler: 'dag.hand' })), edges: [{ from: 'a', to: 'j' }, { from: 'b', to: 'j' }],
    });
    const run = await fire(jobId);
    const roots = await claimRun(run.id, at(10), NODE.nodeId, ['dag.hand']);
    const [first, second] = roots;
    const [r1] = values(await completeTasks(t.db, [withHandoff(first!)], at(20)));
    expect(r1).not.toHaveProperty('handedOff');
    expect(r1).not.toHaveProperty('ready');
    expect((await tasksOf(t.db, run.id)).j).toMatchObject({ status: 'pending', pendingParents: 2 });
    const [r2] = values(await completeTasks(t.db, [withHandoff(second!)], at(30)));
    expect(r2).not.toHaveProperty('handedOff');
    expect(r2).toMatchObject({ applied: true, ready: 1 });
    expect((await claimRun(run.id, at(40), NODE.nodeId, ['dag.hand'])).map((c) => c.stepKey)).toEqual(['j']);
  });
});


/** Claims a run's steps a and b for NODE and gives b to node-b, as two workers would hold them. */
async function claimOnTwoNodes(runId: string, handler: string): Promise<{ a: ClaimedTask; b: ClaimedTask }> {
  const both = await claimRun(runId, at(10), NODE.nodeId, [handler]);
  expect(both.map((c) => c.stepKey).sort()).toEqual(['a', 'b']);
  const a = both.find((c) => c.stepKey === 'a')!;
  const b = both.find((c) => c.stepKey === 'b')!;
  await t.pool.query(`UPDATE tasks SET locked_by = 'node-b' WHERE id = $1::uuid`, [b.id]);
  return { a, b };
}

/** A success as a worker reports it: with the keys its claim gave (run, job, week). */
const keyedSuccess = (c: ClaimedTask, nodeId = NODE.nodeId) => ({ ...success(c, nodeId), runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor });

/** A success of `c` as completeDagTasksSql takes it. */
const batchItem = (c: ClaimedTask) =>
  ({ taskId: c.id, runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, attempt: c.attempt, output: null, error: null, exitCode: null });

/** A worker's batch statement (complete-dag-tasks.ts, worker's path) of one success. */
const batchOf = (db: SqlClient, c: ClaimedTask, nodeId: string, now: Date) =>
  completeDagTasksSql(db, { nodeId, message: 'succeeded', jobFirst: false, bookStats: true, items: [batchItem(c)] }, now);

/**
 * A worker's batch statement of `c`'s success run in a transaction on `pool` that is left open:
 * it holds the run FOR SHARE and its own rows until `commit()`. Resolves once the statement is
 * done, with its rows; `committed()` says whether commit() was called, `finished` resolves after COMMIT.
 */
async function holdBatchOpen(pool: SqlPool, c: ClaimedTask, nodeId: string, now: Date) {
  let done: DagTaskCompleted[] = [];
  let committed = false;
  let commit!: () => void;
  const mayCommit = new Promise<void>((resolve) => { commit = () => { committed = true; resolve(); }; });
  let statementDone!: () => void;
  const held = new Promise<void>((resolve) => { statementDone = resolve; });
  const finished = pool.$transaction(async (tx) => {
    done = await batchOf(tx, c, nodeId, now);
    statementDone();
    await mayCommit;
  });
  await held;
  return { done, commit, committed: () => committed, finished };
}

describe('a cancel between a batch\'s commit and the run\'s end (complete-task.ts settleDagBatch, cancel-run.ts)', () => {
  it('nothing left to cancel: the run ends with its real outcome and error, and the cancel is a conflict naming it', async () => {
    // b failed for good; a's success is committed by a worker's batch statement, which leaves the
    // run's end to the settling after it: the cancel comes in between.
    const jobId = await insertJob(t.db, { steps: ['a', 'b'].map((key) => ({ key, handler: 'dag.race' })) });
    const run = await fire(jobId);
    const both = await claimRun(run.id, at(10), NODE.nodeId, ['dag.race']);
    const a = both.find((c) => c.stepKey === 'a')!;
    const b = both.find((c) => c.stepKey === 'b')!;
    await completeTask(t.db, { taskId: b.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom', retryable: false }, at(20));
    await batchOf(t.db, a, NODE.nodeId, at(30));
    expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('running');

    const refused = await cancelRun(t.db, run.id, 'alice', at(40)).then(() => null, (e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'conflict', detail: { status: 'failed' } });
    const ended = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect(ended.status).toBe('failed');
    expect(ended.error).toMatch(/boom/);
    expect(ended.error).not.toMatch(/cancelled/);
    // and a cancel of a run with an open task still cancels it, naming who did
    const other = await fire(jobId);
    const claimed = await claimRun(other.id, at(50), NODE.nodeId, ['dag.race']);
    await batchOf(t.db, claimed[0]!, NODE.nodeId, at(60));
    const cancelled = await cancelRun(t.db, other.id, 'alice', at(70));
    expect(cancelled).toMatchObject({ status: 'cancelled', error: 'cancelled by alice' });
  });
});

describe('batches completing steps of one run side by side (complete-dag-tasks.ts FOR SHARE, complete-task.ts settleDagBatch)', () => {
  it('a batch does not wait for another batch of the same run; of the two racing for its last tasks, the one that commits last ends the run', async () => {
    // Two leaves of one run, a and b, on two nodes. node-a's statement is left uncommitted in an
    // open transaction while node-b completes b: node-b must not wait for it (the run is shared),
    // and must not end the run (a is still running as node-b's probe after its commit sees it).
    // Then node-a commits and settles: its probe sees both, and the run ends once.
    const jobId = await insertJob(t.db, { steps: ['a', 'b'].map((key) => ({ key, handler: 'dag.share' })) });
    const run = await fire(jobId);
    const { a, b } = await claimOnTwoNodes(run.id, 'dag.share');

    const holding = createSqlPool(t.url, 1, { settings: HOT_PATH_SETTINGS });
    // node-b's pool gives up on a lock after 2 s: waiting for node-a's open transaction fails the test
    const nodeB = createSqlPool(t.url, 2, { settings: { ...HOT_PATH_SETTINGS, lock_timeout: '2s' } });
    try {
      const batchA = await holdBatchOpen(holding, a, NODE.nodeId, at(40));
      expect(batchA.done.map((d) => [d.id, d.runReady])).toEqual([[a.id, 0]]);

      const [rb] = values(await completeTasks(nodeB, [keyedSuccess(b, 'node-b')], at(40)));
      expect(rb).toMatchObject({ applied: true, task: { id: b.id, status: 'success' } });
      expect(rb).not.toHaveProperty('runStatus');
      expect((await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('running');

      batchA.commit();
      await batchA.finished;
      const ended = await settleDagBatch(holding, batchA.done, at(40));
      expect([...ended]).toEqual([[run.id, 'success']]);
    } finally {
      await holding.$disconnect();
      await nodeB.$disconnect();
    }
    const runRow = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([runRow.status, runRow.durationMs]).toEqual(['success', 30]);
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.successRuns, job.totalRuns, (await selectLastRun(t.db, job))?.status]).toEqual([1, 1, 'success']);
    const date = T0.toISOString().slice(0, 10);
    expect((await rebuildStats(t.db, { from: date, to: date, timeZone: 'UTC' })).drift).toEqual([]);
  });
});

describe('a run settled by another batch before a success skipped its on_failure children (settle.ts finishRunIfDone)', () => {
  it('ends success, the cleanup step skipped by design, not failed as a deadlock', async () => {
    // a and b on two nodes; a -on_failure-> cleanup. node-a's statement commits a's success, but
    // its settling (which skips cleanup by design) has not run yet when node-b completes b and
    // settles the run: cleanup is still pending and can never become ready.
    const jobId = await insertJob(t.db, {
      steps: ['a', 'b', 'cleanup'].map((key) => ({ key, handler: 'dag.onf-race' })),
      edges: [{ from: 'a', to: 'cleanup', type: 'on_failure' }],
    });
    const run = await fire(jobId);
    const { a, b } = await claimOnTwoNodes(run.id, 'dag.onf-race');
    const hot = createSqlPool(t.url, 2, { settings: HOT_PATH_SETTINGS });
    try {
      const doneA = await batchOf(hot, a, NODE.nodeId, at(40));
      expect(doneA.map((d) => d.onFailureChildren)).toEqual([1]);

      const [rb] = values(await completeTasks(hot, [keyedSuccess(b, 'node-b')], at(50)));
      expect(rb).toMatchObject({ applied: true, runStatus: 'success' });
      // node-a's settling comes late and finds nothing left to do
      expect([...(await settleDagBatch(hot, doneA, at(60)))]).toEqual([[run.id, null]]);
    } finally {
      await hot.$disconnect();
    }
    const runRow = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([runRow.status, runRow.error]).toEqual(['success', null]);
    const tasks = await tasksOf(t.db, run.id);
    expect([tasks.cleanup!.status, tasks.cleanup!.error]).toEqual(['skipped', null]);
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.successRuns, job.failedRuns, job.consecutiveFailures]).toEqual([1, 0, 0]);
  });
});

describe('a success\'s on_failure children in a run held by another batch (complete-task.ts settleDagBatch, SKIP LOCKED)', () => {
  it('are not waited for: the completion returns at once, and the run\'s last settling skips them by design', async () => {
    // a -on_failure-> cleanup, and b; node-b's batch of b is left uncommitted (it shares the run)
    // while node-a completes a. Waiting for the run to skip cleanup now would hold node-a's
    // completion (and the steps it hands off) until node-b commits.
    const jobId = await insertJob(t.db, {
      steps: ['a', 'b', 'cleanup'].map((key) => ({ key, handler: 'dag.onf-held' })),
      edges: [{ from: 'a', to: 'cleanup', type: 'on_failure' }],
    });
    const run = await fire(jobId);
    const { a, b } = await claimOnTwoNodes(run.id, 'dag.onf-held');
    const holding = createSqlPool(t.url, 1, { settings: HOT_PATH_SETTINGS });
    const nodeA = createSqlPool(t.url, 2, { settings: HOT_PATH_SETTINGS });
    try {
      const batchB = await holdBatchOpen(holding, b, 'node-b', at(40));
      // a bound on the old behaviour (waiting for the run): node-b commits after 5 s at the latest
      const deadline = setTimeout(batchB.commit, 5_000);
      const [ra] = values(await completeTasks(nodeA, [keyedSuccess(a)], at(40)));
      const returnedWhileHeld = !batchB.committed();
      clearTimeout(deadline);
      expect(ra).toMatchObject({ applied: true, task: { id: a.id, status: 'success' } });
      expect(ra).not.toHaveProperty('runStatus');
      expect(returnedWhileHeld).toBe(true);
      expect((await tasksOf(t.db, run.id)).cleanup!.status).toBe('pending');

      batchB.commit();
      await batchB.finished;
      expect([...(await settleDagBatch(holding, batchB.done, at(50)))]).toEqual([[run.id, 'success']]);
    } finally {
      await holding.$disconnect();
      await nodeA.$disconnect();
    }
    const runRow = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([runRow.status, runRow.error]).toEqual(['success', null]);
    const tasks = await tasksOf(t.db, run.id);
    expect([tasks.cleanup!.status, tasks.cleanup!.error]).toEqual(['skipped', null]);
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.successRuns, job.failedRuns]).toEqual([1, 0]);
  });
});

describe('a batch whose settling fails after its statement committed (complete-task.ts completeDagBatch)', () => {
  it('reports what the statement did — successes and a handed-off step — and leaves the quiet run to the reaper', async () => {
    const handoff = { handlers: ['dag.settle'], group: 'default', labels: {}, leaseSeconds: 30 };
    const chain = await insertJob(t.db, { steps: ['a', 'b'].map((key) => ({ key, handler: 'dag.settle' })), edges: [{ from: 'a', to: 'b' }] });
    const pair = await insertJob(t.db, { steps: ['x', 'y'].map((key) => ({ key, handler: 'dag.settle' })), edges: [{ from: 'x', to: 'y' }] });
    const chainRun = await fire(chain);
    const pairRun = await fire(pair);
    const first = await claim(t.db, at(10), { nodeId: NODE.nodeId, handlers: ['dag.settle'], limit: 10 });
    const a = first.find((c) => c.runId === chainRun.id)!;
    const x = first.find((c) => c.runId === pairRun.id)!;
    expect([a?.stepKey, x?.stepKey]).toEqual(['a', 'x']);
    values(await completeTasks(t.db, [success(x)], at(20)));
    const [y] = await claimRun(pairRun.id, at(30), NODE.nodeId, ['dag.settle']);
    expect(y?.stepKey).toBe('y');

    // A real pool whose transactions fail (the connection lost after the statement's commit):
    // the batch statement runs, the settling transaction of the pair's run (its last task) does not.
    const hot = createSqlPool(t.url, 2, { settings: HOT_PATH_SETTINGS });
    try {
      const failingTransactions = Object.assign(Object.create(hot) as typeof hot, {
        $transaction: async () => { throw new Error('Connection terminated unexpectedly'); },
      });
      const keys = (c: ClaimedTask) => ({ ...success(c), runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor });
      const [ra, ry] = values(await completeTasks(failingTransactions, [{ ...keys(a), handoff }, keys(y!)], at(40)));
      expect(ra).toMatchObject({ applied: true, task: { id: a.id, status: 'success' } });
      expect((ra as { handedOff: ClaimedTask[] }).handedOff.map((c) => c.stepKey)).toEqual(['b']);
      expect(ry).toMatchObject({ applied: true, task: { id: y!.id, status: 'success' } });
      expect(ry).not.toHaveProperty('runStatus');
    } finally {
      await hot.$disconnect();
    }
    // the handed-off step is this node's, running; the pair's run waits for the stranded-run sweep
    expect((await tasksOf(t.db, chainRun.id)).b).toMatchObject({ status: 'running' });
    expect((await t.db.task.findFirstOrThrow({ where: { runId: chainRun.id, stepKey: 'b' } })).lockedBy).toBe(NODE.nodeId);
    expect((await t.db.run.findUniqueOrThrow({ where: { id: pairRun.id } })).status).toBe('running');
  });
});

describe('plans: a DAG completion reads rows in proportion to its batch, not to its run (complete-dag-tasks.ts childByKeySql)', () => {
  /** Rows the plan read from the tasks partitions (every scan node's rows × loops), from EXPLAIN ANALYZE's JSON. */
  const taskRowsRead = (node: Record<string, unknown>): number => {
    const own = typeof node['Relation Name'] === 'string' && /^tasks(_|$)/.test(node['Relation Name'] as string) && /Scan/.test(node['Node Type'] as string)
      ? (node['Actual Rows'] as number) * (node['Actual Loops'] as number) : 0;
    return own + ((node.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, p) => sum + taskRowsRead(p), 0);
  };

  it('10 parents of a 1,000-step DAG (every task in one week): the children are reached from their dependency rows, not by scanning the week', async () => {
    // 10 layers of 100 steps; each step below the first has 3 distinct parents in the layer above.
    // Every task of a run shares its week (scheduled_for), so a plan that reaches children by week
    // reads the run's 1,000 tasks per completed parent: ~10,000 rows for this batch.
    const steps = Array.from({ length: 1000 }, (_, i) => ({ key: `s${i}`, handler: 'dag.plan' }));
    const edges: { from: string; to: string }[] = [];
    for (let i = 100; i < 1000; i++) {
      const layerAbove = Math.floor(i / 100) * 100 - 100;
      for (const k of [0, 1, 2]) edges.push({ from: `s${layerAbove + ((i * 7 + k * 31) % 100)}`, to: `s${i}` });
    }
    const jobId = await insertJob(t.db, { steps, edges });
    const run = await fire(jobId);
    const batch = (await claimRun(run.id, at(10), NODE.nodeId, ['dag.plan'])).slice(0, 10);
    expect(batch).toHaveLength(10);

    const hot = createSqlPool(t.url, 1, { settings: HOT_PATH_SETTINGS });
    try {
      let plan: Record<string, unknown> | undefined;
      const explaining: SqlClient = {
        $queryRawUnsafe: async <T,>(q: string, ...v: unknown[]) => {
          const rows = await hot.$queryRawUnsafe<{ 'QUERY PLAN': { Plan: Record<string, unknown> }[] }[]>(`EXPLAIN (ANALYZE, FORMAT JSON) ${q}`, ...v);
          plan = rows[0]!['QUERY PLAN'][0]!.Plan;
          return [] as T;
        },
        $executeRawUnsafe: async () => { throw new Error('not expected'); },
      };
      await completeDagTasksSql(explaining, {
        nodeId: NODE.nodeId, message: 'test', jobFirst: false, bookStats: true,
        items: batch.map((c) => ({ taskId: c.id, runId: c.runId, jobId: c.jobId, scheduledFor: c.scheduledFor, attempt: c.attempt, output: null, error: null, exitCode: null })),
      }, at(20));
      // the batch's 10 tasks (locked, then updated) and their ≤ 30 children (read, locked in id
      // order, then released), each read a few times by key: ~200, against ~10,000 for a walk
      expect(taskRowsRead(plan!)).toBeLessThan(300);
    } finally {
      await hot.$disconnect();
    }
    // the statement did its work: the 10 parents succeeded
    const done = await t.db.task.count({ where: { runId: run.id, status: 'success' } });
    expect(done).toBe(10);
  });
});
