/**
 * Start lateness of downstream DAG steps (lib/engine/sql/stats-outcome.ts latenessFromSql,
 * readyAtOnReleaseSql): a step's lateness counts from the later of its run's slot and the
 * instant it became ready, never the time it waited for its parents. Every path that releases
 * a step sets that instant: a parent's success (one by one and batched, with a hand-off), a
 * dead parent over soft and on_failure edges, and an operator re-open. The handler stats, the
 * claim's latenessFrom (the workers' lateness histogram) and the stats rebuild agree.
 */
import { describe, expect, it } from 'vitest';
import { completeTask, retryTask, triggerRun } from '../../lib/engine/index.ts';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, insertJob, statusesOf } from './engine-fixtures.ts';

const t = useTestDatabase();

async function start(spec: Parameters<typeof insertJob>[1]) {
  const jobId = await insertJob(t.db, spec);
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
  return run.id;
}

/** Claims the one ready step `stepKey` of the run (handlers are per test, so tests share no stats rows). */
async function claimStep(runId: string, stepKey: string, handler: string, now: Date): Promise<ClaimedTask> {
  const claimed = await claim(t.db, now, { handlers: [handler], limit: 100 });
  expect(claimed.map((c) => [c.runId, c.stepKey])).toEqual([[runId, stepKey]]);
  return claimed[0]!;
}

const finish = (c: ClaimedTask, now: Date, outcome: 'success' | 'failed' = 'success') =>
  completeTask(t.db, { taskId: c.id, attempt: c.attempt, nodeId: NODE.nodeId, outcome, error: outcome === 'success' ? null : 'boom' }, now);

async function latenessOf(handler: string) {
  const [row] = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler } }));
  return { count: row?.latenessCount ?? 0, totalMs: Number(row?.totalLatenessMs ?? 0) };
}

async function expectNoDrift() {
  const date = T0.toISOString().slice(0, 10);
  expect((await rebuildStats(t.db, { from: date, to: date, timeZone: 'UTC' })).drift).toEqual([]);
}

describe('a downstream step is late from when it became ready, not from its run\'s slot', () => {
  it('chain a -> b -> c behind a 3 s step: b and c book their own delay, and the claim measures from the same instant', async () => {
    const handler = 'late.chain';
    const runId = await start({ steps: ['a', 'b', 'c'].map((key) => ({ key, handler })), edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
    const a = await claimStep(runId, 'a', handler, at(10));
    expect(a.latenessFrom).toEqual(T0);
    await finish(a, at(3_010));
    const b = await claimStep(runId, 'b', handler, at(3_050));
    expect(b.latenessFrom).toEqual(at(3_010));
    await finish(b, at(3_100));
    const c = await claimStep(runId, 'c', handler, at(3_200));
    expect(c.latenessFrom).toEqual(at(3_100));
    await finish(c, at(3_210));
    // a 10 after the slot, b 40 after a's success, c 100 after b's (from the slot: 3,050 and 3,200)
    expect(await latenessOf(handler)).toEqual({ count: 3, totalMs: 150 });
    const ready = await t.db.task.findMany({ where: { runId }, orderBy: { stepKey: 'asc' }, select: { stepKey: true, readyAt: true } });
    expect(ready).toEqual([{ stepKey: 'a', readyAt: null }, { stepKey: 'b', readyAt: at(3_010) }, { stepKey: 'c', readyAt: at(3_100) }]);
    await expectNoDrift();
  });

  it('children released by a dead parent, over a soft and an on_failure edge, count from that failure', async () => {
    const handler = 'late.dead';
    const runId = await start({
      steps: ['p', 'soft', 'cleanup'].map((key) => ({ key, handler })),
      edges: [{ from: 'p', to: 'soft', type: 'soft' }, { from: 'p', to: 'cleanup', type: 'on_failure' }],
    });
    const p = await claimStep(runId, 'p', handler, at(20));
    await finish(p, at(2_000), 'failed');
    const both = await claim(t.db, at(2_030), { handlers: [handler], limit: 100 });
    expect(both.map((c) => [c.stepKey, c.latenessFrom]).sort()).toEqual([['cleanup', at(2_000)], ['soft', at(2_000)]]);
    for (const c of both) await finish(c, at(2_100));
    expect(await statusesOf(t.db, runId)).toEqual({ p: 'dead', soft: 'success', cleanup: 'success' });
    // p 20 after the slot, soft and cleanup 30 after p died (from the slot: 2,030 each)
    expect(await latenessOf(handler)).toEqual({ count: 3, totalMs: 80 });
    await expectNoDrift();
  });

  it('a skipped step re-opened by an operator an hour later counts from its release after the retry; the earlier bookings stand', async () => {
    const handler = 'late.retry';
    const runId = await start({ steps: ['a', 'b'].map((key) => ({ key, handler })), edges: [{ from: 'a', to: 'b' }] });
    const a = await claimStep(runId, 'a', handler, at(10));
    await finish(a, at(1_000), 'failed');
    expect(await statusesOf(t.db, runId)).toEqual({ a: 'dead', b: 'skipped' });
    const hour = 3_600_000;
    await retryTask(t.db, a.id, 'ops', at(hour));
    const a2 = await claimStep(runId, 'a', handler, at(hour + 10));
    expect(a2.attempt).toBe(2); // a retry: no lateness of its own
    await finish(a2, at(hour + 500));
    const b = await claimStep(runId, 'b', handler, at(hour + 600));
    expect([b.attempt, b.latenessFrom]).toEqual([1, at(hour + 500)]);
    await finish(b, at(hour + 650));
    expect(await statusesOf(t.db, runId)).toEqual({ a: 'success', b: 'success' });
    // a's first attempt 10 after the slot; b 100 after a's success, not an hour and 600 ms
    expect(await latenessOf(handler)).toEqual({ count: 2, totalMs: 110 });
    await expectNoDrift();
  });

  it('a step that already ran keeps its ready instant when its parent is retried', async () => {
    const handler = 'late.kept';
    const runId = await start({ steps: ['a', 'b'].map((key) => ({ key, handler })), edges: [{ from: 'a', to: 'b', type: 'soft' }] });
    const a = await claimStep(runId, 'a', handler, at(10));
    await finish(a, at(100), 'failed');
    const b = await claimStep(runId, 'b', handler, at(150));
    await finish(b, at(200));
    // the retry re-opens only a (b succeeded); a's second attempt books no lateness
    await retryTask(t.db, a.id, 'ops', at(3_600_000));
    const a2 = await claimStep(runId, 'a', handler, at(3_600_010));
    expect(a2.attempt).toBe(2);
    await finish(a2, at(3_600_020));
    expect(await statusesOf(t.db, runId)).toEqual({ a: 'success', b: 'success' });
    const row = await t.db.task.findFirstOrThrow({ where: { runId, stepKey: 'b' } });
    expect(row.readyAt).toEqual(at(100));
    // a 10 after the slot, b 50 after a died: the rebuild reads the same instants back
    expect(await latenessOf(handler)).toEqual({ count: 2, totalMs: 60 });
    await expectNoDrift();
  });
});
