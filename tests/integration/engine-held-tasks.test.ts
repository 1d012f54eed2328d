/**
 * Tasks a worker holds before starting them (lib/engine/sql/claim-tasks.ts `held`,
 * lib/engine/mark-held-tasks-started.ts, lib/engine/reclaim-expired-leases.ts): the claim marks
 * the tasks claimed ahead and those beyond the ones the worker starts at once; the start marker
 * clears the mark only while the task is still the worker's; a dead worker's held tasks go back
 * to pending on the same attempt, its started ones fail their attempt as before.
 */
import { describe, expect, it } from 'vitest';
import { claimTasks, extendLeases, markHeldTasksStarted, reclaimExpiredLeases, releaseTasks, triggerRun } from '../../lib/engine/index.ts';
import { MAX_UNSTARTED_HAND_BACKS } from '../../lib/engine/release-tasks.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

async function runsDue(handler: string, n: number, scheduleAt: Date): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const jobId = await insertJob(t.db, { steps: [{ key: 'main', handler }] });
    ids.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: scheduleAt, scheduleAt }, T0)).run.id);
  }
  return ids;
}

const rowOf = (id: string) => t.db.task.findUniqueOrThrow({ where: { id } });

describe('the claim marks the tasks its worker will hold', () => {
  it('due now beyond startNow, and claimed ahead: held; the first startNow due now, in claim order: not held', async () => {
    const handler = 'held.claim';
    await runsDue(handler, 3, at(0));
    await runsDue(handler, 2, at(400));
    const claimed = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 2, aheadMs: 500 }, at(100));
    expect(claimed.map((c) => [c.startedAt.getTime() - T0.getTime(), c.held])).toEqual([[100, false], [100, false], [100, true], [400, true], [400, true]]);
    for (const c of claimed) expect((await rowOf(c.id)).held).toBe(c.held);
  });

  it('without startNow every task due now starts at once: none held', async () => {
    const handler = 'held.default';
    await runsDue(handler, 3, at(0));
    const claimed = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10 }, at(100));
    expect(claimed.map((c) => c.held)).toEqual([false, false, false]);
  });
});

describe('markHeldTasksStarted', () => {
  it('records the real start of a held task that is still the worker\'s, and nothing else', async () => {
    const handler = 'held.mark';
    await runsDue(handler, 3, at(0));
    const [a, b, c] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 0 }, at(100));
    expect([a!.held, b!.held, c!.held]).toEqual([true, true, true]);
    const input = (x: typeof a, startedAt: Date) => ({ id: x!.id, attempt: x!.attempt, scheduledFor: x!.scheduledFor, startedAt });
    // c is no longer this node's (another node's lease): refused
    await t.pool.query(`UPDATE tasks SET locked_by = 'node-z' WHERE id = $1`, [c!.id]);
    const marked = await markHeldTasksStarted(t.db, { nodeId: NODE.nodeId, tasks: [input(a, at(250)), input(b, at(300)), input(c, at(300))] }, at(300));
    expect(marked.sort()).toEqual([a!.id, b!.id].sort());
    expect(await rowOf(a!.id)).toMatchObject({ held: false, startedAt: at(250), status: 'running' });
    expect((await rowOf(c!.id)).held).toBe(true);
    // a second mark (the heartbeat marked it first, say) still finds it this worker's, and keeps the start
    expect(await markHeldTasksStarted(t.db, { nodeId: NODE.nodeId, tasks: [input(a, at(400))] }, at(400))).toEqual([a!.id]);
    expect(await rowOf(a!.id)).toMatchObject({ held: false, startedAt: at(250) });
  });
});

describe('the reaper and a dead worker\'s held tasks', () => {
  it('a held task whose lease expired goes back to pending on the same attempt and is claimable; a started one fails its attempt', async () => {
    const handler = 'held.reap';
    await runsDue(handler, 2, at(0));
    const [started, held] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 1, leaseSeconds: 5 }, at(100));
    expect([started!.held, held!.held]).toEqual([false, true]);
    const reclaimed = await reclaimExpiredLeases(t.db, { limit: 10 }, at(5_200));
    expect(reclaimed.map((r) => [r.taskId, r.status, r.handedBack ?? false]).sort()).toEqual([
      [started!.id, 'dead', false], [held!.id, 'pending', true],
    ].sort());
    expect(await rowOf(held!.id)).toMatchObject({ status: 'pending', attempt: 1, held: false, lockedBy: null, leaseUntil: null, startedAt: null });
    const logs = await t.db.taskLog.findMany({ where: { taskId: held!.id }, orderBy: { id: 'asc' } });
    expect(logs.map((l) => `${l.fromStatus}>${l.toStatus}`)).toEqual(['null>pending', 'pending>running', 'running>pending']);
    expect(logs.at(-1)!.message).toBe(`handed back unstarted: worker ${NODE.nodeId} presumed dead before it started the task (lease expired)`);
    const again = await claimTasks(t.db, { ...NODE, nodeId: 'node-b', handlers: [handler], limit: 10 }, at(5_300));
    expect(again.map((c) => [c.id, c.attempt, c.held])).toEqual([[held!.id, 1, false]]);
    // no failed attempt, so no stats event for the handed-back task
    const stats = await t.db.handlerStatsDaily.findMany({ where: { handler } });
    expect(stats.reduce((n, s) => n + s.failure, 0)).toBe(1);
  });

  it('a held task whose start was recorded before the lease expired is an attempt like any other', async () => {
    const handler = 'held.marked';
    await runsDue(handler, 1, at(0));
    const [c] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 0, leaseSeconds: 5 }, at(100));
    await markHeldTasksStarted(t.db, { nodeId: NODE.nodeId, tasks: [{ id: c!.id, attempt: 1, scheduledFor: c!.scheduledFor, startedAt: at(200) }] }, at(200));
    const [r] = await reclaimExpiredLeases(t.db, { limit: 10 }, at(5_200));
    expect(r).toMatchObject({ taskId: c!.id, status: 'dead' });
    expect(r!.handedBack).toBeUndefined();
  });

  it('the reaper\'s hand-back re-checks the lease and the mark: a lease renewed meanwhile, or a start recorded, wins', async () => {
    const handler = 'held.renewed';
    await runsDue(handler, 2, at(0));
    const [renewed, marked] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 0, leaseSeconds: 5 }, at(100));
    // as the reaper found them (expired at 5,200), then a heartbeat renews one and the other's start is recorded
    await t.pool.query(`UPDATE tasks SET lease_until = $2 WHERE id = $1`, [renewed!.id, at(20_000)]);
    await t.pool.query(`UPDATE tasks SET held = false WHERE id = $1`, [marked!.id]);
    const keys = (c: typeof renewed) => ({ id: c!.id, attempt: c!.attempt, scheduledFor: c!.scheduledFor });
    const n = await releaseTasks(t.db, { nodeId: NODE.nodeId, tasks: [keys(renewed), keys(marked)], reason: 'lease expired', reaped: true }, at(5_200));
    expect(n).toBe(0);
    expect((await rowOf(renewed!.id)).status).toBe('running');
    expect((await rowOf(marked!.id)).status).toBe('running');
  });

  it('one attempt is handed back at most MAX_UNSTARTED_HAND_BACKS times; the next expiry fails it (a handler that kills its worker at once)', async () => {
    const handler = 'held.poison';
    await runsDue(handler, 1, at(0));
    expect(MAX_UNSTARTED_HAND_BACKS).toBe(2);
    let now = 100;
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      const [c] = await claimTasks(t.db, { ...NODE, nodeId: `node-${i}`, handlers: [handler], limit: 10, startNow: 0, leaseSeconds: 5 }, at(now));
      expect([c!.attempt, c!.held]).toEqual([1, true]);
      now += 5_100;
      const r = (await reclaimExpiredLeases(t.db, { limit: 100 }, at(now))).find((x) => x.taskId === c!.id);
      statuses.push(`${r!.status}${r!.handedBack ? ' (handed back)' : ''}`);
      now += 100;
    }
    expect(statuses).toEqual(['pending (handed back)', 'pending (handed back)', 'dead']);
  });
});

describe('the heartbeat marks started the held tasks whose handler runs', () => {
  it('startedTaskIds clears held with the lease renewal; the others stay held', async () => {
    const handler = 'held.heartbeat';
    await runsDue(handler, 2, at(0));
    const [a, b] = await claimTasks(t.db, { ...NODE, handlers: [handler], limit: 10, startNow: 0 }, at(100));
    const res = await extendLeases(t.db, { nodeId: NODE.nodeId, taskIds: [a!.id, b!.id], leaseSeconds: 30, startedTaskIds: [a!.id] }, at(200));
    expect(res.extended.sort()).toEqual([a!.id, b!.id].sort());
    expect((await rowOf(a!.id)).held).toBe(false);
    expect((await rowOf(b!.id)).held).toBe(true);
  });
});

