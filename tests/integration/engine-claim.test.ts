/**
 * Claims, leases and compare-and-set (docs/design.md §4; docs/engine-cases.md case 3):
 * concurrent claimers, resource keys, routing, lease extension and reclaim.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import {
  CANCEL_CHANNEL, TASKS_CHANNEL, cancelAheadRuns, cancelRun, claimTasks, completeTask, expireHeldResourceKeys, extendLeases, reclaimExpiredLeases,
  releaseHeldResourceKeys, renewHeldResourceKeys, retryTask, triggerRun, triggerRunAhead,
} from '../../lib/engine/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, insertJob, logsOf, tasksOf } from './engine-fixtures.ts';

const t = useTestDatabase();
let other: PrismaClient;
beforeAll(async () => {
  other = createPrismaClient(t.url, 10);
});
afterAll(async () => {
  await other.$disconnect();
});

/**
 * A session listening on tickflow_tasks. `heardAfter(act)` returns what `act`'s commits notified: a
 * round trip on the listening session after a commit delivers what that commit notified
 * (PostgreSQL sends pending notifications before the session's next ReadyForQuery).
 */
async function listenForTasks(): Promise<{ heardAfter: (act: () => Promise<unknown>) => Promise<string[]>; release: () => void }> {
  const listener = await t.pool.connect();
  const heard: string[] = [];
  listener.on('notification', (n) => { if (n.channel === TASKS_CHANNEL) heard.push(n.payload ?? ''); });
  await listener.query(`LISTEN ${TASKS_CHANNEL}`);
  return {
    async heardAfter(act) {
      await listener.query('SELECT 1');
      heard.length = 0;
      await act();
      await listener.query('SELECT 1');
      return [...heard];
    },
    release: () => listener.release(),
  };
}

async function startRun(spec: Parameters<typeof insertJob>[1] = {}, now = T0) {
  const jobId = await insertJob(t.db, spec);
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: now }, now);
  return { jobId, runId: run.id };
}

describe('concurrent claimers', () => {
  it('two clients claiming 2,000 ready tasks never get the same task', async () => {
    const steps = Array.from({ length: 2000 }, (_, i) => ({ key: `s${i}`, handler: 'conc.work' }));
    const { runId } = await startRun({ steps });
    const handlers = ['conc.work'];
    const loop = async (db: PrismaClient, nodeId: string) => {
      const got: string[] = [];
      for (;;) {
        const batch = await claimTasks(db, { ...NODE, nodeId, handlers, limit: 37 }, T0);
        if (batch.length === 0) return got;
        got.push(...batch.map((b) => b.id));
      }
    };
    const [a, b, c, d] = await Promise.all([loop(t.db, 'n1'), loop(other, 'n2'), loop(t.db, 'n3'), loop(other, 'n4')]);
    const all = [...a, ...b, ...c, ...d];
    expect(all).toHaveLength(2000);
    expect(new Set(all).size).toBe(2000);
    expect(a.length * b.length).toBeGreaterThan(0);
    const rows = await t.pool.query(`SELECT count(*)::int AS n FROM task_logs WHERE run_id = $1 AND to_status = 'running'`, [runId]);
    expect(rows.rows[0].n).toBe(2000);
    // Leave nothing running for the lease tests below.
    const cancelled = await cancelRun(t.db, runId, 'test', T0);
    expect(cancelled.status).toBe('cancelled');
  });
});

describe('resource keys', () => {
  it('at most one running task per resource_key across runs, even with two concurrent claimers', async () => {
    const handler = 'rk.work';
    // 5 runs x 4 steps; steps k0..k3 share 2 keys -> at most 2 running at any time.
    for (let r = 0; r < 5; r++) {
      await startRun({ steps: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, handler, resourceKey: `res-${i % 2}` })) });
    }
    let finished = 0;
    for (let round = 0; round < 40 && finished < 20; round++) {
      const [a, b] = await Promise.all([
        claimTasks(t.db, { ...NODE, nodeId: 'r1', handlers: [handler], limit: 10 }, T0),
        claimTasks(other, { ...NODE, nodeId: 'r2', handlers: [handler], limit: 10 }, T0),
      ]);
      const running = await t.pool.query(
        `SELECT resource_key, count(*)::int AS n FROM tasks WHERE handler = $1 AND status = 'running' GROUP BY resource_key`, [handler]);
      for (const row of running.rows) expect(row.n).toBe(1);
      expect(a.length + b.length).toBeLessThanOrEqual(2);
      for (const task of [...a.map((x) => ({ ...x, node: 'r1' })), ...b.map((x) => ({ ...x, node: 'r2' }))]) {
        const r = await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: task.node, outcome: 'success' }, T0);
        expect(r.applied).toBe(true);
        finished++;
      }
    }
    expect(finished).toBe(20);
  });

  it('a claim batch takes one task per key and leaves the rest pending', async () => {
    const handler = 'rk.batch';
    const { runId } = await startRun({ steps: [{ key: 'a', handler, resourceKey: 'db-1' }, { key: 'b', handler, resourceKey: 'db-1' }, { key: 'c', handler }] });
    const got = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, T0);
    expect(got.map((g) => g.resourceKey).sort()).toEqual(['db-1', null].sort());
    const s = await tasksOf(t.db, runId);
    expect([s.a.status, s.b.status].sort()).toEqual(['pending', 'running']);
  });

  it('the end of a keyed attempt wakes the workers when a ready task waits on its key, and only then', async () => {
    // prisma/migrations/20261212000000_resource_key_freed_notify: without it a worker other than
    // the holder's found the waiting task only at its next safety poll.
    const handler = 'rk.wake';
    const { heardAfter, release } = await listenForTasks();
    try {
      const first = await startRun({ steps: [{ key: 'a', handler, resourceKey: 'wake-1' }] });
      const [held] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, T0);
      const second = await startRun({ steps: [{ key: 'a', handler, resourceKey: 'wake-1' }] }, at(5_000));
      expect(await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(5_000))).toEqual([]);
      // the holder ends: one notification naming the waiter's due instant
      expect(await heardAfter(() => completeTask(t.db, { taskId: held!.id, attempt: held!.attempt, nodeId: NODE.nodeId, outcome: 'success' }, at(6_000))))
        .toEqual([String(at(5_000).getTime())]);
      const [next] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(6_000));
      expect(next!.runId).toBe(second.runId);
      expect(first.runId).not.toBe(second.runId);
      // nobody waits on the key now: its end notifies nothing
      expect(await heardAfter(() => completeTask(t.db, { taskId: next!.id, attempt: next!.attempt, nodeId: NODE.nodeId, outcome: 'success' }, at(7_000))))
        .toEqual([]);
    } finally {
      release();
    }
  });

  it('a cancelled task retried while its attempt still holds the key is woken when the hold is freed', async () => {
    // prisma/migrations/20261213000000_resource_key_freed_notify_retried: the retry's own NOTIFY came
    // while the key was held, and the release's left the task that had held it out.
    const handler = 'rk.retried';
    const { heardAfter, release } = await listenForTasks();
    try {
      const { runId } = await startRun({ steps: [{ key: 'a', handler, resourceKey: 'retried-1' }] });
      const [held] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, T0);
      await cancelRun(t.db, runId, 'alice', at(1_000));
      await retryTask(t.db, held!.id, 'alice', at(2_000));
      expect((await t.db.task.findUniqueOrThrow({ where: { id: held!.id } })).status).toBe('pending');
      // the key is still held by the cancelled attempt: not claimable yet
      expect(await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(3_000))).toEqual([]);
      let freed: string[] = [];
      const heard = await heardAfter(async () => { freed = await releaseHeldResourceKeys(t.db, { nodeId: NODE.nodeId, taskIds: [held!.id] }); });
      expect(freed).toEqual(['retried-1']);
      const retried = await t.db.task.findUniqueOrThrow({ where: { id: held!.id } });
      expect(heard).toEqual([String(retried.scheduleAt.getTime())]);
      const [again] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(4_000));
      expect(again!.id).toBe(held!.id);
    } finally {
      release();
    }
  });

  it('a cancelled attempt holds its key until its worker frees it, its heartbeat renewing the hold; the reaper frees a hold past its end', async () => {
    const handler = 'rk.cancel';
    const heldRows = async () => (await t.pool.query(
      `SELECT task_id::text AS "taskId", held_by AS "heldBy", held_until AS "heldUntil" FROM running_resources WHERE resource_key = 'cancel-1'`)).rows;
    const first = await startRun({ steps: [{ key: 'a', handler, resourceKey: 'cancel-1' }] });
    const [held] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, T0);
    await startRun({ steps: [{ key: 'a', handler, resourceKey: 'cancel-1' }] }, at(1_000));
    await cancelRun(t.db, first.runId, 'alice', at(2_000));
    // cancelled, and the key still held by its worker until the lease end the claim gave
    expect((await t.db.task.findUniqueOrThrow({ where: { id: held!.id } })).status).toBe('cancelled');
    expect(await heldRows()).toEqual([{ taskId: held!.id, heldBy: NODE.nodeId, heldUntil: held!.leaseUntil }]);
    expect(await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(3_000))).toEqual([]);
    // another node can neither free nor renew it; its own heartbeat renews it
    expect(await releaseHeldResourceKeys(t.db, { nodeId: 'someone-else', taskIds: [held!.id] })).toEqual([]);
    expect(await renewHeldResourceKeys(t.db, { nodeId: 'someone-else', taskIds: [held!.id], leaseSeconds: 30 }, at(4_000))).toBe(0);
    expect(await renewHeldResourceKeys(t.db, { nodeId: NODE.nodeId, taskIds: [held!.id], leaseSeconds: 30 }, at(4_000))).toBe(1);
    // the reaper frees only a hold whose end has passed
    expect(await expireHeldResourceKeys(t.db, at(33_000))).toEqual([]);
    expect(await expireHeldResourceKeys(t.db, at(34_001))).toEqual([{ resourceKey: 'cancel-1', taskId: held!.id, heldBy: NODE.nodeId }]);
    const [next] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(35_000));
    expect(next!.resourceKey).toBe('cancel-1');
    // and a cancel of this one is freed by its worker: the handler returned
    await cancelRun(t.db, next!.runId, 'alice', at(36_000));
    expect((await heldRows()).map((r) => r.taskId)).toEqual([next!.id]);
    expect(await releaseHeldResourceKeys(t.db, { nodeId: NODE.nodeId, taskIds: [next!.id] })).toEqual(['cancel-1']);
    expect(await heldRows()).toEqual([]);
  });

  it('a keyed attempt that ends any other way frees its key at once: failure, retry, reclaim', async () => {
    const handler = 'rk.ends';
    const keyRows = async () => (await t.pool.query(`SELECT count(*)::int AS n FROM running_resources WHERE resource_key = 'ends-1'`)).rows[0].n;
    await startRun({ maxRetries: 1, steps: [{ key: 'a', handler, resourceKey: 'ends-1' }] });
    const [a1] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, T0);
    expect(await keyRows()).toBe(1);
    await completeTask(t.db, { taskId: a1!.id, attempt: a1!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(1_000));
    expect(await keyRows()).toBe(0); // retry scheduled
    const [a2] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(120_000));
    expect(a2!.attempt).toBe(2);
    expect(await keyRows()).toBe(1);
    await reclaimExpiredLeases(t.db, { limit: 10 }, at(10 * 60_000));
    expect(await keyRows()).toBe(0);
  });
});

describe('routing', () => {
  it('node group, labels and explicit node lists are enforced in the claim', async () => {
    const handler = 'route.work';
    await startRun({ steps: [{ key: 'g', handler }], routingNodeGroup: 'gpu' });
    await startRun({ steps: [{ key: 'l', handler }], routingLabels: { region: 'eu', disk: 'ssd' } });
    await startRun({ steps: [{ key: 'n', handler }], routingStrategy: 'nodes', routingNodes: ['node-x'] });
    const base = { ...NODE, handlers: [handler], limit: 10 };
    expect(await claimTasks(t.db, { ...base, nodeId: 'plain', group: 'default', labels: { region: 'eu' } }, T0)).toEqual([]);
    const gpu = await claimTasks(t.db, { ...base, nodeId: 'g1', group: 'gpu' }, T0);
    expect(gpu.map((x) => x.stepKey)).toEqual(['g']);
    const eu = await claimTasks(t.db, { ...base, nodeId: 'l1', labels: { region: 'eu', disk: 'ssd', extra: '1' } }, T0);
    expect(eu.map((x) => x.stepKey)).toEqual(['l']);
    const x = await claimTasks(t.db, { ...base, nodeId: 'node-x' }, T0);
    expect(x.map((y) => y.stepKey)).toEqual(['n']);
  });

  it('consistent_hash: one live owner per key; when it dies another live node takes over', async () => {
    const handler = 'hash.work';
    const nodes = ['h-1', 'h-2', 'h-3'];
    for (const n of nodes) {
      await t.db.workerNode.create({ data: { nodeId: n, name: n, host: 'h', pid: 1, handlers: [handler], lastHeartbeatAt: T0 } });
    }
    await startRun({ steps: [{ key: 'k', handler }], routingStrategy: 'consistent_hash', routingKey: 'tenant-42' });
    const base = { ...NODE, handlers: [handler], limit: 10 };
    const claims = await Promise.all(nodes.map((n) => claimTasks(t.db, { ...base, nodeId: n }, T0)));
    const owners = nodes.filter((_, i) => claims[i].length === 1);
    expect(owners).toHaveLength(1);
    const owner = owners[0];
    const task = claims[nodes.indexOf(owner)][0];
    await completeTask(t.db, { taskId: task.id, attempt: 1, nodeId: owner, outcome: 'success' }, T0);
    // The same key routes to the same owner next time.
    await startRun({ steps: [{ key: 'k', handler }], routingStrategy: 'consistent_hash', routingKey: 'tenant-42' });
    for (const n of nodes.filter((n) => n !== owner)) expect(await claimTasks(t.db, { ...base, nodeId: n }, T0)).toEqual([]);
    // The owner's heartbeat goes stale: another node owns the key.
    const later = at(120_000);
    await t.db.workerNode.updateMany({ where: { nodeId: { in: nodes.filter((n) => n !== owner) } }, data: { lastHeartbeatAt: later } });
    const rest = await Promise.all(nodes.filter((n) => n !== owner).map((n) => claimTasks(t.db, { ...base, nodeId: n }, later)));
    expect(rest.flat()).toHaveLength(1);
    expect(await claimTasks(t.db, { ...base, nodeId: owner }, later)).toEqual([]);
  });
});

describe('leases and compare-and-set (docs/engine-cases.md case 3)', () => {
  it('an expired lease is reclaimed as a failed attempt; the late completion of the old attempt is refused and changes nothing', async () => {
    const handler = 'lease.work';
    const { runId } = await startRun({ steps: [{ key: 'slow', handler }], maxRetries: 1 });
    const [first] = await claimTasks(t.db, { ...NODE, nodeId: 'old-node', handlers: [handler], leaseSeconds: 2 }, T0);
    const reclaimed = await reclaimExpiredLeases(t.db, { limit: 10 }, at(2001));
    expect(reclaimed).toEqual([{ taskId: first.id, nodeId: 'old-node', attempt: 1, handler, status: 'pending' }]);
    const [second] = await claimTasks(t.db, { ...NODE, nodeId: 'new-node', handlers: [handler], leaseSeconds: 30 }, at(5000));
    expect(second.id).toBe(first.id);
    expect(second.attempt).toBe(2);
    const before = await t.pool.query(`SELECT * FROM tasks WHERE id = $1`, [first.id]);
    const logsBefore = (await logsOf(t.db, first.id)).length;
    // The old worker's handler finally returns (5 s after start): refused, no change at all.
    const late = await completeTask(t.db, { taskId: first.id, attempt: 1, nodeId: 'old-node', outcome: 'success', output: { late: true } }, at(5000));
    expect(late).toEqual({ applied: false });
    const after = await t.pool.query(`SELECT * FROM tasks WHERE id = $1`, [first.id]);
    expect(after.rows[0]).toEqual(before.rows[0]);
    expect((await logsOf(t.db, first.id)).length).toBe(logsBefore);
    // Same attempt number but another node is refused too.
    expect((await completeTask(t.db, { taskId: first.id, attempt: 2, nodeId: 'old-node', outcome: 'success' }, at(5000))).applied).toBe(false);
    const ok = await completeTask(t.db, { taskId: first.id, attempt: 2, nodeId: 'new-node', outcome: 'success' }, at(6000));
    expect(ok.applied).toBe(true);
    expect(ok.runStatus).toBe('success');
    const logs = await logsOf(t.db, first.id);
    expect(logs.map((l) => `${l.fromStatus ?? '-'}>${l.toStatus}`)).toEqual(
      ['->pending', 'pending>running', 'running>failed', 'failed>pending', 'pending>running', 'running>success']);
    expect(logs[2].message).toBe('lease expired: worker old-node presumed dead');
    expect((await t.db.run.findUniqueOrThrow({ where: { id: runId } })).status).toBe('success');
  });

  it('a heartbeat keeps a long task within its timeout from being reclaimed', async () => {
    const handler = 'lease.long';
    await startRun({ steps: [{ key: 'long', handler }] });
    const [task] = await claimTasks(t.db, { ...NODE, nodeId: 'hb-node', handlers: [handler], leaseSeconds: 10 }, T0);
    for (let s = 5; s <= 60; s += 5) {
      const r = await extendLeases(t.db, { nodeId: 'hb-node', taskIds: [task.id], leaseSeconds: 10 }, at(s * 1000));
      expect(r).toEqual({ extended: [task.id], lost: [], cancelled: [] });
      // (other tests' abandoned tasks in this database may be reclaimed; ours never is)
      const reclaimed = await reclaimExpiredLeases(t.db, { limit: 5000 }, at(s * 1000 + 9000));
      expect(reclaimed.map((x) => x.taskId)).not.toContain(task.id);
    }
    // Another node cannot extend it; the owner reports it lost once it is gone.
    expect(await extendLeases(t.db, { nodeId: 'intruder', taskIds: [task.id], leaseSeconds: 10 }, at(61_000))).toEqual({ extended: [], lost: [task.id], cancelled: [] });
    expect((await completeTask(t.db, { taskId: task.id, attempt: 1, nodeId: 'hb-node', outcome: 'success' }, at(62_000))).applied).toBe(true);
    expect(await extendLeases(t.db, { nodeId: 'hb-node', taskIds: [task.id], leaseSeconds: 10 }, at(63_000))).toEqual({ extended: [], lost: [task.id], cancelled: [] });
  });

  it('reclaim with retries used up: dead, children skipped, run failed', async () => {
    const handler = 'lease.dead';
    const { runId } = await startRun({ steps: [{ key: 'a', handler }, { key: 'b', handler }], edges: [{ from: 'a', to: 'b' }] });
    await claimTasks(t.db, { ...NODE, nodeId: 'gone', handlers: [handler], leaseSeconds: 1 }, T0);
    const r = await reclaimExpiredLeases(t.db, { limit: 10 }, at(1500));
    expect(r[0]).toMatchObject({ status: 'dead', runStatus: 'failed' });
    const s = await tasksOf(t.db, runId);
    expect([s.a.status, s.b.status]).toEqual(['dead', 'skipped']);
  });

  it('a retried attempt waits for its backoff (schedule_at)', async () => {
    const handler = 'backoff.work';
    await startRun({ steps: [{ key: 'x', handler }], maxRetries: 3, backoffBaseSeconds: 10 });
    const c = { ...NODE, handlers: [handler] };
    const [a1] = await claimTasks(t.db, c, T0);
    const r1 = await completeTask(t.db, { taskId: a1.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed' }, T0);
    expect(r1.task).toMatchObject({ status: 'pending', attempt: 2, retryAt: at(10_000) });
    expect(await claimTasks(t.db, c, at(9_999))).toEqual([]);
    const [a2] = await claimTasks(t.db, c, at(10_000));
    const r2 = await completeTask(t.db, { taskId: a2.id, attempt: 2, nodeId: NODE.nodeId, outcome: 'failed' }, at(10_000));
    expect(r2.task!.retryAt).toEqual(at(30_000)); // 10 s * 2^1
    // the task log's retryAt is written as every instant the API gives: ISO-8601 UTC (lib/engine/sql/iso-utc.ts)
    const logs = await t.pool.query(`SELECT detail->>'retryAt' AS at FROM task_logs WHERE task_id = $1 AND to_status = 'pending' AND detail ? 'retryAt' ORDER BY attempt`, [a1.id]);
    expect(logs.rows.map((r: { at: string }) => r.at)).toEqual([at(10_000).toISOString(), at(30_000).toISOString()]);
  });
});

describe('claiming ahead (ClaimInput.aheadMs; docs/on-time.md "Claiming ahead")', () => {
  async function aheadRun(slot: Date, created: Date) {
    const jobId = await insertJob(t.db, { steps: [{ key: 'main', handler: 'ahead.work' }] });
    const run = await triggerRunAhead(t.db, { jobId, triggeredBy: 'test', scheduledFor: slot, scheduleAt: slot }, created);
    return { jobId, runId: run!.id };
  }
  const node = { ...NODE, handlers: ['ahead.work'] };

  it('takes a task due within aheadMs with its schedule_at as its start and lease start; not one due later, nor without aheadMs', async () => {
    const slot = at(10_000);
    const { runId } = await aheadRun(slot, at(7_000));
    expect(await claimTasks(t.db, node, at(9_600))).toEqual([]);
    expect(await claimTasks(t.db, { ...node, aheadMs: 300 }, at(9_600))).toEqual([]);
    const [c] = await claimTasks(t.db, { ...node, aheadMs: 500 }, at(9_600));
    expect(c).toMatchObject({ runId, startedAt: slot, leaseUntil: at(10_000 + 30_000) });
    const row = await t.db.task.findUniqueOrThrow({ where: { id: c!.id } });
    expect([row.status, row.startedAt]).toEqual(['running', slot]);
    const [claimedLog] = (await logsOf(t.db, c!.id)).filter((l) => l.toStatus === 'running');
    expect(claimedLog!.createdAt).toEqual(at(9_600)); // claimed now, starting at its slot
  });

  it('a child claimed with a clock reading taken before its parent\'s completion starts no earlier than its release', async () => {
    // A claimer reads its clock, then its statement runs after a parent's completion committed with a
    // later reading (a claim waiting for a connection, or a worker whose clock is a little behind):
    // the child's start is its release instant, never before the parent's end.
    const { runId } = await startRun({ steps: [{ key: 'a', handler: 'order.work' }, { key: 'b', handler: 'order.work' }], edges: [{ from: 'a', to: 'b' }] }, at(0));
    const orderNode = { ...NODE, handlers: ['order.work'] };
    const [a] = await claimTasks(t.db, orderNode, at(100));
    expect((await completeTask(t.db, { taskId: a!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(1_000))).applied).toBe(true);
    const [b] = await claimTasks(t.db, orderNode, at(965));
    expect(b).toMatchObject({ runId, stepKey: 'b', startedAt: at(1_000), leaseUntil: at(1_000 + 30_000) });
    const parent = await t.db.task.findUniqueOrThrow({ where: { id: a!.id } });
    const child = await t.db.task.findUniqueOrThrow({ where: { id: b!.id } });
    expect(child.startedAt!.getTime()).toBeGreaterThanOrEqual(parent.completedAt!.getTime());
    expect(child.readyAt).toEqual(at(1_000));
    // and the task log reads in that order: b claimed no earlier than a succeeded
    const succeeded = (await logsOf(t.db, a!.id)).find((l) => l.toStatus === 'success')!;
    const claimed = (await logsOf(t.db, b!.id)).find((l) => l.toStatus === 'running')!;
    expect(claimed.createdAt.getTime()).toBeGreaterThanOrEqual(succeeded.createdAt.getTime());
  });

  it('a cancel whose clock reading predates a claim that committed first logs the cancel after the claim', async () => {
    const { runId } = await startRun({ steps: [{ key: 'a', handler: 'order.cancel' }] }, at(0));
    const [a] = await claimTasks(t.db, { ...NODE, handlers: ['order.cancel'] }, at(500));
    await cancelRun(t.db, runId, 'op', at(400));
    const logs = await logsOf(t.db, a!.id);
    const claimed = logs.find((l) => l.toStatus === 'running')!;
    const cancelled = logs.find((l) => l.toStatus === 'cancelled')!;
    expect(cancelled.createdAt.getTime()).toBeGreaterThanOrEqual(claimed.createdAt.getTime());
  });

  it('a completion carrying the real start records it: start, duration and lateness are counted from it', async () => {
    const slot = at(20_000);
    const { runId } = await aheadRun(slot, at(17_000));
    const [c] = await claimTasks(t.db, { ...node, aheadMs: 500 }, at(19_700));
    const r = await completeTask(t.db, { taskId: c!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success', startedAt: at(20_040) }, at(20_100));
    expect(r.applied).toBe(true);
    const row = await t.db.task.findUniqueOrThrow({ where: { id: c!.id } });
    expect(row.startedAt).toEqual(at(20_040));
    const run = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
    expect([run.status, run.startedAt, run.durationMs]).toEqual(['success', at(20_040), 60]);
    const [finish] = (await logsOf(t.db, c!.id)).filter((l) => l.toStatus === 'success');
    expect((finish!.detail as { durationMs: number }).durationMs).toBe(60);
    const stats = await t.pool.query(`SELECT sum(total_lateness_ms)::int AS late, sum(lateness_count)::int AS n FROM handler_stats_daily WHERE handler = 'ahead.work'`);
    expect(stats.rows[0]).toEqual({ late: 40, n: 1 });
  });

  it('a pause before the slot cancels a run whose task is claimed ahead, telling its worker', async () => {
    const slot = at(30_000);
    const { jobId, runId } = await aheadRun(slot, at(27_000));
    const [c] = await claimTasks(t.db, { ...node, aheadMs: 500 }, at(29_600));
    const listener = await t.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query(`LISTEN ${CANCEL_CHANNEL}`);
    try {
      const res = await cancelAheadRuns(t.db, { jobId, actor: 'alice', reason: 'job paused' }, at(29_800));
      expect(res.cancelledRunIds).toEqual([runId]);
      const row = await t.db.task.findUniqueOrThrow({ where: { id: c!.id } });
      expect(row.status).toBe('cancelled');
      for (let i = 0; i < 100 && !heard.some((p) => p.includes(c!.id)); i++) await new Promise((r) => setTimeout(r, 50));
      expect(heard.some((p) => p.includes(c!.id))).toBe(true);
    } finally {
      listener.release();
    }
    // once its start has come, a claimed task is no longer "ahead": a pause leaves it running
    const later = await aheadRun(at(40_000), at(37_000));
    await claimTasks(t.db, { ...node, aheadMs: 500 }, at(39_600));
    expect((await cancelAheadRuns(t.db, { jobId: later.jobId, actor: 'alice', reason: 'job paused' }, at(40_001))).cancelledRunIds).toEqual([]);
  });
});
