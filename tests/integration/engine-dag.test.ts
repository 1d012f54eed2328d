/**
 * DAG semantics (docs/design.md §4 dependency types; docs/engine-cases.md case 5): edge rules,
 * shapes, propagation, deadlock, and that every transition is in task_logs.
 */
import { describe, expect, it } from 'vitest';
import { claimTasks, completeTask, markRunsStarted, triggerRun } from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, drive, insertJob, logsOf, statusesOf, tasksOf } from './engine-fixtures.ts';

const t = useTestDatabase();

async function start(spec: Parameters<typeof insertJob>[1]) {
  const jobId = await insertJob(t.db, spec);
  const { run, outcome } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
  expect(outcome).toBe('started');
  return { jobId, runId: run.id };
}

describe('edge-type rules: parent outcome x dependency type', () => {
  // parent P -> child C; P ends as given (dead = failed with no retries); C's fate and the run's status.
  const table: { type: 'hard' | 'soft' | 'on_failure'; parent: 'success' | 'failed' | 'timeout'; child: string; run: string }[] = [
    { type: 'hard', parent: 'success', child: 'success', run: 'success' },
    { type: 'hard', parent: 'failed', child: 'skipped', run: 'failed' },
    { type: 'hard', parent: 'timeout', child: 'skipped', run: 'timeout' },
    { type: 'soft', parent: 'success', child: 'success', run: 'success' },
    { type: 'soft', parent: 'failed', child: 'success', run: 'failed' },
    { type: 'soft', parent: 'timeout', child: 'success', run: 'timeout' },
    { type: 'on_failure', parent: 'success', child: 'skipped', run: 'success' },
    { type: 'on_failure', parent: 'failed', child: 'success', run: 'failed' },
    { type: 'on_failure', parent: 'timeout', child: 'success', run: 'timeout' },
  ];
  for (const row of table) {
    it(`${row.type} edge, parent ${row.parent} -> child ${row.child}, run ${row.run}`, async () => {
      const { runId } = await start({ steps: [{ key: 'p' }, { key: 'c' }], edges: [{ from: 'p', to: 'c', type: row.type }] });
      await drive(t.db, T0, { p: row.parent });
      const s = await statusesOf(t.db, runId);
      expect(s.p).toBe(row.parent === 'success' ? 'success' : 'dead');
      expect(s.c).toBe(row.child);
      const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      expect(run.status).toBe(row.run);
      expect(run.finishedAt).not.toBeNull();
      if (row.type === 'on_failure' && row.parent === 'success') {
        const c = (await tasksOf(t.db, runId)).c;
        expect(c.error).toBeNull(); // skipped by design
      }
    });
  }
});

describe('shapes', () => {
  it('chain a -> b -> c -> d runs in order', async () => {
    const { runId } = await start({
      steps: ['a', 'b', 'c', 'd'].map((key) => ({ key })),
      edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'd' }],
    });
    const order = await drive(t.db, T0);
    expect(order).toEqual(['a', 'b', 'c', 'd']);
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('success');
  });

  it('diamond a -> (b, c) -> d: d waits for both', async () => {
    const { runId } = await start({
      steps: ['a', 'b', 'c', 'd'].map((key) => ({ key })),
      edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'b', to: 'd' }, { from: 'c', to: 'd' }],
    });
    const [a] = await claim(t.db, T0);
    expect(a.stepKey).toBe('a');
    await completeTask(t.db, { taskId: a.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    const bc = await claim(t.db, T0);
    expect(bc.map((x) => x.stepKey).sort()).toEqual(['b', 'c']);
    await completeTask(t.db, { taskId: bc[0].id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    // a join keeps its parent count until the statement that sees both parents ended releases it
    // (lib/engine/sql/release-joins.ts)
    expect((await tasksOf(t.db, runId)).d.pendingParents).toBe(2);
    expect(await claim(t.db, T0)).toEqual([]);
    await completeTask(t.db, { taskId: bc[1].id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    const [d] = await claim(t.db, T0);
    expect(d.stepKey).toBe('d');
    const r = await completeTask(t.db, { taskId: d.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(5000));
    expect(r.runStatus).toBe('success');
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe('success');
    expect(run.durationMs).toBe(5000);
  });

  it('wide fan-out / fan-in: root -> 200 leaves -> sink', async () => {
    const leaves = Array.from({ length: 200 }, (_, i) => `l${i}`);
    const { runId } = await start({
      steps: [{ key: 'root' }, ...leaves.map((key) => ({ key })), { key: 'sink' }],
      edges: [...leaves.map((l) => ({ from: 'root', to: l })), ...leaves.map((l) => ({ from: l, to: 'sink' }))],
    });
    expect((await tasksOf(t.db, runId)).sink.pendingParents).toBe(200);
    const order = await drive(t.db, T0);
    expect(order[0]).toBe('root');
    expect(order.at(-1)).toBe('sink');
    expect(order).toHaveLength(202);
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('success');
  });

  it('a hard skip propagates down hard edges and soft children still run', async () => {
    // a -> b (hard) -> c (hard) ; b -> s (soft)
    const { runId } = await start({
      steps: ['a', 'b', 'c', 's'].map((key) => ({ key })),
      edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'b', to: 's', type: 'soft' }],
    });
    await drive(t.db, T0, { a: 'failed' });
    expect(await statusesOf(t.db, runId)).toEqual({ a: 'dead', b: 'skipped', c: 'skipped', s: 'success' });
    const c = (await tasksOf(t.db, runId)).c;
    const logs = await logsOf(t.db, c.id);
    expect(logs.at(-1)!.message).toBe('skipped: parent b ended skipped');
  });
});

describe('the error of a failed run names the task that failed, not one skipped because of it (finalise-run.ts first_error)', () => {
  it('z dead -> y skipped -> its on_failure child a_cleanup skipped, all at one instant: the run\'s error is z\'s', async () => {
    // The skips are written in z's transaction, at z's completion instant: by time alone the
    // three tie, and by step key a_cleanup would come first.
    const { runId } = await start({
      steps: [{ key: 'z' }, { key: 'y' }, { key: 'a_cleanup' }],
      edges: [{ from: 'z', to: 'y' }, { from: 'y', to: 'a_cleanup', type: 'on_failure' }],
    });
    const [z] = await claim(t.db, T0);
    expect(z?.stepKey).toBe('z');
    await completeTask(t.db, { taskId: z!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(10));
    expect(await statusesOf(t.db, runId)).toEqual({ z: 'dead', y: 'skipped', a_cleanup: 'skipped' });
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/^z: /);
  });
});

describe('docs/engine-cases.md case 5: a join with one failed and one succeeded parent resolves', () => {
  it('hard A->C, B->C: A dead, B success -> C skipped naming A, run failed, nothing open', async () => {
    const { runId } = await start({
      steps: [{ key: 'A' }, { key: 'B' }, { key: 'C' }],
      edges: [{ from: 'A', to: 'C' }, { from: 'B', to: 'C' }],
    });
    const ready = await claim(t.db, T0);
    const A = ready.find((x) => x.stepKey === 'A')!;
    const B = ready.find((x) => x.stepKey === 'B')!;
    await completeTask(t.db, { taskId: B.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    await completeTask(t.db, { taskId: A.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, T0);
    expect(await statusesOf(t.db, runId)).toEqual({ A: 'dead', B: 'success', C: 'skipped' });
    const C = (await tasksOf(t.db, runId)).C;
    const log = (await logsOf(t.db, C.id)).at(-1)!;
    expect(log.fromStatus).toBe('pending');
    expect(log.toStatus).toBe('skipped');
    expect(log.message).toContain('parent A');
    expect((log.detail as { parentTaskId: string }).parentTaskId).toBe(A.id);
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.status).toBe('failed');
    expect(await t.db.task.count({ where: { runId, status: { in: ['pending', 'running'] } } })).toBe(0);
  });

  it('same with A dead first, then B: C is skipped at once and B still completes the run', async () => {
    const { runId } = await start({
      steps: [{ key: 'A' }, { key: 'B' }, { key: 'C' }],
      edges: [{ from: 'A', to: 'C' }, { from: 'B', to: 'C' }],
    });
    const ready = await claim(t.db, T0);
    const A = ready.find((x) => x.stepKey === 'A')!;
    const B = ready.find((x) => x.stepKey === 'B')!;
    await completeTask(t.db, { taskId: A.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed' }, T0);
    expect((await statusesOf(t.db, runId)).C).toBe('skipped');
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('running');
    const r = await completeTask(t.db, { taskId: B.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    expect(r.runStatus).toBe('failed');
  });

  it('soft A->C: C runs after A dead and B success', async () => {
    const { runId } = await start({
      steps: [{ key: 'A' }, { key: 'B' }, { key: 'C' }],
      edges: [{ from: 'A', to: 'C', type: 'soft' }, { from: 'B', to: 'C' }],
    });
    await drive(t.db, T0, { A: 'failed' });
    expect(await statusesOf(t.db, runId)).toEqual({ A: 'dead', B: 'success', C: 'success' });
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('failed');
  });
});

describe('deadlock detection', () => {
  it('a cycle that bypassed validation ends the run failed with a deadlock log entry', async () => {
    // root -> x, x <-> y (a cycle the job validation would reject; inserted directly)
    const { runId } = await start({
      steps: [{ key: 'root' }, { key: 'x' }, { key: 'y' }],
      edges: [{ from: 'x', to: 'y' }, { from: 'y', to: 'x' }],
    });
    const tasks = await tasksOf(t.db, runId);
    expect(tasks.x.pendingParents).toBe(1);
    const [root] = await claim(t.db, T0);
    expect(root.stepKey).toBe('root');
    const r = await completeTask(t.db, { taskId: root.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, T0);
    expect(r.runStatus).toBe('failed');
    const after = await tasksOf(t.db, runId);
    expect(after.x.status).toBe('skipped');
    expect(after.y.status).toBe('skipped');
    const log = (await logsOf(t.db, after.x.id)).at(-1)!;
    expect(log.message).toBe('deadlock: tasks x, y can never become ready');
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect(run.error).toContain('deadlock');
  });
});

describe('task_logs', () => {
  it('every transition of every task appears in task_logs, in order', async () => {
    const { runId } = await start({
      maxRetries: 1,
      steps: [{ key: 'a' }, { key: 'b' }, { key: 'c' }],
      edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c', type: 'on_failure' }],
    });
    const [a1] = await claim(t.db, T0);
    await completeTask(t.db, { taskId: a1.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'timeout' }, T0);
    expect(await claim(t.db, T0)).toEqual([]); // backoff: 1 s
    const [a2] = await claim(t.db, at(1000));
    expect(a2.attempt).toBe(2);
    await completeTask(t.db, { taskId: a2.id, attempt: 2, nodeId: NODE.nodeId, outcome: 'success' }, at(1500));
    await drive(t.db, at(2000));
    const tasks = await tasksOf(t.db, runId);
    const path = async (id: string) => (await logsOf(t.db, id)).map((l) => `${l.fromStatus ?? '-'}>${l.toStatus}`);
    expect(await path(tasks.a.id)).toEqual(['->pending', 'pending>running', 'running>timeout', 'timeout>pending', 'pending>running', 'running>success']);
    expect(await path(tasks.b.id)).toEqual(['->pending', 'pending>running', 'running>success']);
    expect(await path(tasks.c.id)).toEqual(['->pending', 'pending>skipped']);
    // The log chain is consistent: each row starts where the previous ended, and ends at the task's status.
    for (const task of Object.values(tasks)) {
      const logs = await logsOf(t.db, task.id);
      for (let i = 1; i < logs.length; i++) expect(logs[i].fromStatus).toBe(logs[i - 1].toStatus);
      expect(logs.at(-1)!.toStatus).toBe(task.status);
    }
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('success');
  });

  it('rejects UPDATE on task_logs', async () => {
    const { runId } = await start({});
    const task = (await tasksOf(t.db, runId)).main;
    const [log] = await logsOf(t.db, task.id);
    await expect(t.pool.query(`UPDATE task_logs SET message = 'x' WHERE id = $1`, [log.id])).rejects.toThrow(/append-only/);
  });

  it('a one-step run stays pending at its claim and takes its start from the task when it ends; instantiation copies payload, overrides and routing', async () => {
    const jobId = await insertJob(t.db, {
      payload: { a: 1, b: 1 }, maxRetries: 2, priority: 7,
      steps: [{ key: 's', payload: { b: 2, c: 2 }, maxRetries: 5, timeoutSeconds: 9, resourceKey: 'rk-payload' }],
    });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'api', triggeredBy: 'tok', scheduledFor: T0, payload: { c: 3 } }, at(250));
    expect(run.status).toBe('pending');
    const task = await t.db.task.findFirstOrThrow({ where: { runId: run.id } });
    expect(task.payload).toEqual({ a: 1, b: 2, c: 3 });
    expect([task.maxRetries, task.timeoutSeconds, task.priority, task.resourceKey]).toEqual([5, 9, 7, 'rk-payload']);
    expect(task.backoff).toEqual({ baseSeconds: 1, factor: 2, maxSeconds: 300, jitter: 0 });
    expect(task.scheduledFor).toEqual(T0);
    const [c] = await claimTasks(t.db, { ...NODE, limit: 10 }, at(1000));
    expect(c.id).toBe(task.id);
    expect(c.onlyTask).toBe(true);
    const r = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([r.status, r.startedAt]).toEqual(['pending', null]);
    await completeTask(t.db, { taskId: c.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(1600));
    const done = await t.db.run.findUniqueOrThrow({ where: { id: run.id } });
    expect([done.status, done.startedAt, done.finishedAt, done.durationMs]).toEqual(['success', at(1000), at(1600), 600]);
  });
});

describe('run start (docs/engine.md "Run start")', () => {
  it('the first claim of a run of several tasks marks it running at the claim', async () => {
    const { runId } = await start({ steps: [{ key: 'a' }, { key: 'b' }], edges: [{ from: 'a', to: 'b' }] });
    const [a] = await claimTasks(t.db, { ...NODE, limit: 10 }, at(1000));
    expect(a.onlyTask).toBe(false);
    const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([r.status, r.startedAt]).toEqual(['running', at(1000)]);
  });

  it('a one-step run is marked running by markRunsStarted, once, with its attempt start', async () => {
    const { runId } = await start({ steps: [{ key: 'only' }] });
    const [c] = await claimTasks(t.db, { ...NODE, limit: 10 }, at(1000));
    expect(await markRunsStarted(t.db, [{ runId, scheduledFor: c.scheduledFor, startedAt: c.startedAt }], at(1250))).toBe(1);
    expect(await markRunsStarted(t.db, [{ runId, scheduledFor: c.scheduledFor, startedAt: at(1300) }], at(1300))).toBe(0);
    const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([r.status, r.startedAt]).toEqual(['running', at(1000)]);
    await completeTask(t.db, { taskId: c.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(2000));
    const done = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([done.status, done.startedAt, done.durationMs]).toEqual(['success', at(1000), 1000]);
  });

  it('a one-step run whose attempt fails and is retried is running from that attempt on', async () => {
    const { runId } = await start({ maxRetries: 1, steps: [{ key: 'only' }] });
    const [c] = await claimTasks(t.db, { ...NODE, limit: 10 }, at(1000));
    const r1 = await completeTask(t.db, { taskId: c.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: 'x' }, at(1100));
    expect(r1.task?.status).toBe('pending');
    const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([r.status, r.startedAt]).toEqual(['running', at(1000)]);
  });
});
