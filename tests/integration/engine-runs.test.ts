/**
 * Run-level semantics (docs/design.md §4): block strategies, cancel, operator
 * retries, dead letter, handler stats.
 */
import { describe, expect, it } from 'vitest';
import {
  DURATION_BUCKET_COUNT, cancelRun, claimTasks, clearTask, completeTask, markTaskSuccess, recordSkippedRun, retryRun, retryTask, triggerRun,
} from '../../lib/engine/index.ts';
import pg from 'pg';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { insertRuns, type NewRun } from '../../lib/engine/sql/insert-runs.ts';
import { selectLastRun } from '../../lib/engine/sql/last-runs.ts';
import { isDomainError } from '../../lib/errors.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { NODE, T0, at, claim, drive, insertJob, logsOf, statusesOf, tasksOf } from './engine-fixtures.ts';

const t = useTestDatabase();

const fire = (jobId: string, now: Date, trigger: 'manual' | 'schedule' = 'manual') =>
  triggerRun(t.db, { jobId, trigger, triggeredBy: 'test', scheduledFor: now }, now);
const run = (id: string) => t.db.run.findUniqueOrThrow({ where: { id } });

describe('block strategies', () => {
  it('discard_later records a skipped run while the previous one is active', async () => {
    const jobId = await insertJob(t.db, { blockStrategy: 'discard_later', steps: [{ key: 'm', handler: 'blk.discard' }] });
    const first = await fire(jobId, T0);
    const second = await fire(jobId, at(60_000), 'schedule');
    expect(second.outcome).toBe('skipped');
    expect(second.run.status).toBe('skipped');
    expect(second.run.reason).toBe(`blocked: previous run ${first.run.id} still active`);
    expect(second.run.finishedAt).toEqual(at(60_000));
    // it never started: no start and no duration, as on the run page (not "0 ms")
    expect(await t.db.run.findUniqueOrThrow({ where: { id: second.run.id }, select: { startedAt: true, durationMs: true } })).toEqual({ startedAt: null, durationMs: null });
    expect(second.run.durationMs).toBeNull();
    expect(await t.db.task.count({ where: { runId: second.run.id } })).toBe(0);
    const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.totalRuns).toBe(1);
  });

  it('serial_execution queues the new run until the previous one ends, in order', async () => {
    const handler = 'blk.serial';
    const jobId = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'a', handler }, { key: 'b', handler }], edges: [{ from: 'a', to: 'b' }] });
    const r1 = await fire(jobId, T0);
    const r2 = await fire(jobId, at(1000));
    const r3 = await fire(jobId, at(2000));
    expect([r1.outcome, r2.outcome, r3.outcome]).toEqual(['started', 'queued', 'queued']);
    expect(r2.run.reason).toContain(r1.run.id);
    const c = { ...NODE, handlers: [handler], limit: 10 };
    const step = async (now: Date) => {
      const got = await claimTasks(t.db, c, now);
      for (const x of got) await completeTask(t.db, { taskId: x.id, attempt: x.attempt, nodeId: NODE.nodeId, outcome: 'success' }, now);
      return got.map((x) => `${x.runId === r1.run.id ? 1 : x.runId === r2.run.id ? 2 : 3}${x.stepKey}`);
    };
    expect(await step(at(3000))).toEqual(['1a']);
    expect(await step(at(3000))).toEqual(['1b']); // r1 ends -> r2 released
    expect((await run(r1.run.id)).status).toBe('success');
    expect((await run(r2.run.id)).reason).toBeNull();
    expect((await run(r3.run.id)).status).toBe('pending');
    expect(await step(at(4000))).toEqual(['2a']);
    expect(await step(at(4000))).toEqual(['2b']);
    expect(await step(at(5000))).toEqual(['3a']);
    expect(await step(at(5000))).toEqual(['3b']);
    expect(await step(at(5000))).toEqual([]);
    expect((await run(r3.run.id)).status).toBe('success');
  });

  it('serial_execution: cancelling the active run releases the queued one; a failed run releases too', async () => {
    const handler = 'blk.serial2';
    const jobId = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'm', handler }] });
    const r1 = await fire(jobId, T0);
    const r2 = await fire(jobId, at(1));
    const r3 = await fire(jobId, at(2));
    await cancelRun(t.db, r1.run.id, 'op', at(10));
    const c = { ...NODE, handlers: [handler], limit: 10 };
    const [x] = await claimTasks(t.db, c, at(20));
    expect(x.runId).toBe(r2.run.id);
    await completeTask(t.db, { taskId: x.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed' }, at(30));
    const [y] = await claimTasks(t.db, c, at(40));
    expect(y.runId).toBe(r3.run.id);
  });

  it('cover_early cancels the active run (running task too: its late completion is refused) and starts the new one', async () => {
    const handler = 'blk.cover';
    const jobId = await insertJob(t.db, { blockStrategy: 'cover_early', steps: [{ key: 'a', handler }, { key: 'b', handler }], edges: [{ from: 'a', to: 'b' }] });
    const r1 = await fire(jobId, T0);
    const [a] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, T0);
    const r2 = await fire(jobId, at(1000));
    expect(r2.outcome).toBe('covered');
    expect(r2.coveredRunIds).toEqual([r1.run.id]);
    expect(await statusesOf(t.db, r1.run.id)).toEqual({ a: 'cancelled', b: 'cancelled' });
    const old = await run(r1.run.id);
    expect(old.status).toBe('cancelled');
    expect((await completeTask(t.db, { taskId: a.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(2000))).applied).toBe(false);
    const [a2] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(2000));
    expect(a2.runId).toBe(r2.run.id);
  });
});

describe('cancel and retry', () => {
  it('cancelRun: pending and running tasks cancelled, run cancelled, NOTIFY tickflow_cancel, second cancel is a conflict', async () => {
    const handler = 'cx.work';
    const jobId = await insertJob(t.db, { steps: [{ key: 'a', handler }, { key: 'b', handler }], edges: [{ from: 'a', to: 'b' }] });
    const { run: r } = await fire(jobId, T0);
    const [a] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, T0);
    const listener = await t.pool.connect();
    const heard: string[] = [];
    listener.on('notification', (n) => { if (n.channel === 'tickflow_cancel') heard.push(n.payload ?? ''); });
    await listener.query('LISTEN tickflow_cancel');
    const cancelled = await cancelRun(t.db, r.id, 'alice', at(500));
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error).toBe('cancelled by alice');
    expect(await statusesOf(t.db, r.id)).toEqual({ a: 'cancelled', b: 'cancelled' });
    await listener.query('SELECT 1');
    listener.release();
    expect(heard.map((h) => JSON.parse(h))).toEqual([[a.id]]);
    await expect(cancelRun(t.db, r.id, 'alice', at(600))).rejects.toMatchObject({ code: 'conflict' });
    expect((await completeTask(t.db, { taskId: a.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(700))).applied).toBe(false);
    const logs = await logsOf(t.db, a.id);
    expect(logs.at(-1)).toMatchObject({ fromStatus: 'running', toStatus: 'cancelled', message: 'cancelled by alice' });
  });

  it('a task cancelled while waiting to retry, or in a later attempt, ends with the cancel as its error; the failure stays in its attempt\'s log row', async () => {
    const handler = 'cx.retrying';
    const jobId = await insertJob(t.db, { steps: [{ key: 'a', handler, maxRetries: 3 }, { key: 'b', handler, maxRetries: 3 }] });
    const { run: r } = await fire(jobId, T0);
    const first = await claimTasks(t.db, { ...NODE, handlers: [handler] }, T0);
    expect(first).toHaveLength(2);
    for (const x of first) {
      await completeTask(t.db, { taskId: x.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed', error: `boom ${x.stepKey}` }, at(100));
    }
    // b is claimed again (attempt 2) while a waits for its backoff
    const before = await tasksOf(t.db, r.id);
    expect(before.a).toMatchObject({ status: 'pending', attempt: 2, error: 'boom a' });
    await t.db.$executeRaw`UPDATE tasks SET schedule_at = ${at(100)} WHERE id = ${before.b.id}::uuid`;
    const [b2] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(200));
    expect(b2).toMatchObject({ stepKey: 'b', attempt: 2 });
    await cancelRun(t.db, r.id, 'alice', at(300));
    const after = await tasksOf(t.db, r.id);
    expect(after.a).toMatchObject({ status: 'cancelled', error: 'cancelled by alice' });
    expect(after.b).toMatchObject({ status: 'cancelled', error: 'cancelled by alice' });
    const logs = await logsOf(t.db, before.a.id);
    expect(logs.map((l) => [l.attempt, l.toStatus, l.message])).toEqual([
      [1, 'pending', 'created'], [1, 'running', 'claimed by node-a'], [1, 'failed', 'failed: boom a'],
      [2, 'pending', expect.stringMatching(/^retry 2\//)], [2, 'cancelled', 'cancelled by alice'],
    ]);
  });

  it('retryTask re-opens a dead task and the tasks skipped because of it; the run runs again to success', async () => {
    const handler = 'rt.work';
    const jobId = await insertJob(t.db, {
      steps: [{ key: 'a', handler }, { key: 'b', handler }, { key: 'c', handler }, { key: 'comp', handler }],
      edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'a', to: 'comp', type: 'on_failure' }],
    });
    const { run: r } = await fire(jobId, T0);
    await drive(t.db, T0, { a: 'failed', comp: 'success' }, [handler]);
    expect(await statusesOf(t.db, r.id)).toEqual({ a: 'dead', b: 'skipped', c: 'skipped', comp: 'success' });
    expect((await run(r.id)).status).toBe('failed');
    const tasks = await tasksOf(t.db, r.id);
    await expect(retryTask(t.db, tasks.comp.id, 'op', at(100))).rejects.toMatchObject({ code: 'conflict' });
    await expect(retryTask(t.db, tasks.c.id, 'op', at(100))).rejects.toMatchObject({ code: 'conflict' }); // parent b still skipped
    const res = await retryTask(t.db, tasks.a.id, 'op', at(100));
    expect(res.reopened).toBe(3);
    const after = await tasksOf(t.db, r.id);
    expect([after.a.status, after.a.attempt, after.a.pendingParents]).toEqual(['pending', 2, 0]);
    expect([after.b.status, after.b.pendingParents, after.c.pendingParents]).toEqual(['pending', 1, 1]);
    expect(after.comp.status).toBe('success');
    const reopenedRun = await run(r.id);
    expect([reopenedRun.status, reopenedRun.finishedAt]).toEqual(['running', null]);
    expect((await logsOf(t.db, tasks.a.id)).at(-1)).toMatchObject({ fromStatus: 'dead', toStatus: 'pending', message: 'retried by op' });
    await drive(t.db, at(200), {}, [handler]);
    expect(await statusesOf(t.db, r.id)).toEqual({ a: 'success', b: 'success', c: 'success', comp: 'success' });
    expect((await run(r.id)).status).toBe('success');
  });

  it('a run that ended is not re-opened while another run of its job is active: one run at a time, whatever the re-open', async () => {
    // serial_execution: run1 failed (a dead, b skipped); run2 is running. A retry, clear or mark
    // success of run1's `a` would run run1 beside run2 (the block strategy decides only when a run
    // is created), so each is a conflict naming run2; once run2 ends, the retry goes through.
    const handler = 'rt.serial';
    const jobId = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'a', handler }, { key: 'b', handler }], edges: [{ from: 'a', to: 'b' }] });
    const { run: run1 } = await fire(jobId, T0);
    await drive(t.db, T0, { a: 'failed' }, [handler]);
    expect((await run(run1.id)).status).toBe('failed');
    const { run: run2 } = await fire(jobId, at(100));
    const [a2] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(110));
    expect(a2!.runId).toBe(run2.id);
    const a1 = (await tasksOf(t.db, run1.id)).a;
    const refusal = { code: 'conflict', detail: { activeRunId: run2.id, status: 'running' } };
    await expect(retryTask(t.db, a1.id, 'op', at(120))).rejects.toMatchObject(refusal);
    await expect(clearTask(t.db, { taskId: a1.id, actor: 'op' }, at(120))).rejects.toMatchObject(refusal);
    await expect(markTaskSuccess(t.db, { taskId: a1.id, actor: 'op', reason: 'fixed by hand' }, at(120))).rejects.toMatchObject(refusal);
    expect(await statusesOf(t.db, run1.id)).toEqual({ a: 'dead', b: 'skipped' });
    expect((await run(run1.id)).status).toBe('failed');

    // a mark success that re-opens nothing (no skipped task below it) does not run the run again
    const single = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'm', handler: 'rt.single' }] });
    const { run: s1 } = await fire(single, T0);
    await drive(t.db, T0, { m: 'failed' }, ['rt.single']);
    const { run: s2 } = await fire(single, at(100));
    await claimTasks(t.db, { ...NODE, handlers: ['rt.single'] }, at(110));
    expect(['pending', 'running']).toContain((await run(s2.id)).status); // active (a one-step run is marked running once its attempt lasts)
    expect((await markTaskSuccess(t.db, { taskId: (await tasksOf(t.db, s1.id)).m.id, actor: 'op', reason: 'done by hand' }, at(120))).runStatus).toBe('success');

    await completeTask(t.db, { taskId: a2!.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'success' }, at(130));
    await drive(t.db, at(140), {}, [handler]);
    expect((await run(run2.id)).status).toBe('success');
    expect((await retryTask(t.db, a1.id, 'op', at(150))).reopened).toBe(2);
    await drive(t.db, at(160), {}, [handler]);
    expect((await run(run1.id)).status).toBe('success');
  });

  it('a run ends timeout only while a dead task\'s last attempt timed out: marked success or retried into a failure, it is failed', async () => {
    const handler = 'rt.timeout';
    const jobId = await insertJob(t.db, { steps: [{ key: 'x', handler }, { key: 'y', handler }] });
    const { run: r } = await fire(jobId, T0);
    await drive(t.db, T0, { x: 'timeout', y: 'failed' }, [handler]);
    expect((await run(r.id)).status).toBe('timeout');
    const { x } = await tasksOf(t.db, r.id);
    // x's timeout is accepted by hand: y's plain failure is what is left
    expect((await markTaskSuccess(t.db, { taskId: x.id, actor: 'op', reason: 'accepted' }, at(100))).runStatus).toBe('failed');
    expect((await run(r.id)).status).toBe('failed');

    const { run: r2 } = await fire(jobId, at(200));
    await drive(t.db, at(200), { x: 'timeout', y: 'success' }, [handler]);
    expect((await run(r2.id)).status).toBe('timeout');
    // retried, x fails this time: its earlier timeout no longer decides
    await retryTask(t.db, (await tasksOf(t.db, r2.id)).x.id, 'op', at(300));
    await drive(t.db, at(300), { x: 'failed' }, [handler]);
    expect((await run(r2.id)).status).toBe('failed');
  });

  it('a run that ends timeout names the step that timed out, not an earlier plain failure', async () => {
    const handler = 'rt.timeout-error';
    const jobId = await insertJob(t.db, { steps: [{ key: 'a', handler }, { key: 'b', handler }] });
    const { run: r } = await fire(jobId, T0);
    // a fails first (and sorts first by key); b's last attempt times out
    await drive(t.db, T0, { a: 'failed', b: 'timeout' }, [handler]);
    const ended = await run(r.id);
    expect(ended.status).toBe('timeout');
    expect(ended.error).toMatch(/^b: /);
    // with no timeout left deciding, the first failure is named again
    await markTaskSuccess(t.db, { taskId: (await tasksOf(t.db, r.id)).b.id, actor: 'op', reason: 'accepted' }, at(100));
    expect(await run(r.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^a: /) });
  });

  it('retryTask on a cancelled run re-opens it', async () => {
    const handler = 'rt.cancel';
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler }] });
    const { run: r } = await fire(jobId, T0);
    await cancelRun(t.db, r.id, 'op', T0);
    const task = (await tasksOf(t.db, r.id)).m;
    await retryTask(t.db, task.id, 'op', at(10));
    expect((await run(r.id)).status).toBe('pending');
    const [x] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(20));
    expect((await completeTask(t.db, { taskId: x.id, attempt: x.attempt, nodeId: NODE.nodeId, outcome: 'success' }, at(30))).runStatus).toBe('success');
    await expect(retryTask(t.db, task.id, 'op', at(40))).rejects.toMatchObject({ code: 'conflict' });
  });

  it('retryRun creates a new run (trigger retry, parent_run_id) from a failed run', async () => {
    const handler = 'rr.work';
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler }] });
    const { run: r } = await triggerRun(t.db, { jobId, trigger: 'api', triggeredBy: 'x', scheduledFor: T0, payload: { n: 1 } }, T0);
    await expect(retryRun(t.db, r.id, 'op', T0)).rejects.toMatchObject({ code: 'conflict' });
    const [x] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, T0);
    await completeTask(t.db, { taskId: x.id, attempt: 1, nodeId: NODE.nodeId, outcome: 'failed' }, T0);
    const again = await retryRun(t.db, r.id, 'op', at(1000));
    expect(again).toMatchObject({ trigger: 'retry', triggeredBy: 'op', parentRunId: r.id, status: 'pending', params: { n: 1 } });
    const task = await t.db.task.findFirstOrThrow({ where: { runId: again.id } });
    expect(task.payload).toEqual({ n: 1 });
    // Once only: concurrent or repeated retries of the same run are refused, naming the retry.
    const repeats = await Promise.allSettled([retryRun(t.db, r.id, 'op', at(2000)), retryRun(t.db, r.id, 'op2', at(2000))]);
    for (const p of repeats) {
      expect(p.status).toBe('rejected');
      expect((p as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict', detail: { retryRunId: again.id } });
    }
    expect(await t.db.run.count({ where: { parentRunId: r.id } })).toBe(1);
  });

  it('errors: unknown ids are not_found DomainErrors', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    for (const call of [
      () => triggerRun(t.db, { jobId: missing, trigger: 'manual', triggeredBy: 'x', scheduledFor: T0 }, T0),
      () => triggerRun(t.db, { jobId: 'not-a-uuid', trigger: 'manual', triggeredBy: 'x', scheduledFor: T0 }, T0),
      () => cancelRun(t.db, missing, 'x', T0),
      () => retryTask(t.db, missing, 'x', T0),
      () => retryRun(t.db, missing, 'x', T0),
    ]) {
      const e = await call().then(() => null, (err: unknown) => err);
      expect(isDomainError(e) && e.code).toBe('not_found');
    }
    const jobId = await insertJob(t.db, {});
    await t.db.job.update({ where: { id: jobId }, data: { deletedAt: T0 } });
    await expect(fire(jobId, T0)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('recordSkippedRun and exactly-once schedule runs', async () => {
    const jobId = await insertJob(t.db, { blockStrategy: 'cover_early', steps: [{ key: 'm', handler: 'once.work' }] });
    const s = await recordSkippedRun(t.db, { jobId, scheduledFor: T0, reason: 'misfire', triggeredBy: 'scheduler' }, at(5));
    expect(s).toMatchObject({ status: 'skipped', reason: 'misfire', trigger: 'schedule', finishedAt: at(5), startedAt: null, durationMs: null });
    await fire(jobId, at(60_000), 'schedule');
    await expect(fire(jobId, at(60_000), 'schedule')).rejects.toThrow(/runs_schedule_fire_uniq|Unique|unique/);
  });
});

describe('dead letter', () => {
  it('N consecutive failed runs move the job to dead_letter with an alarm; a success resets the counter', async () => {
    const handler = 'dl.work';
    const jobId = await insertJob(t.db, { deadLetterAfter: 3, steps: [{ key: 'm', handler }] });
    const once = async (outcome: 'success' | 'failed', ms: number) => {
      await fire(jobId, at(ms));
      const [x] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(ms));
      const error = outcome === 'failed' ? `disk full at ${ms}` : undefined;
      return completeTask(t.db, { taskId: x.id, attempt: 1, nodeId: NODE.nodeId, outcome, error }, at(ms));
    };
    await once('failed', 0);
    await once('failed', 1000);
    let job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.consecutiveFailures, job.status, (await selectLastRun(t.db, job))?.status]).toEqual([2, 'active', 'failed']);
    await once('success', 2000);
    job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.consecutiveFailures, job.successRuns, job.failedRuns]).toEqual([0, 1, 2]);
    await once('failed', 3000);
    await once('failed', 4000);
    expect(await t.db.alarm.count({ where: { jobId } })).toBe(0);
    await once('failed', 5000);
    job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
    expect([job.consecutiveFailures, job.status, job.failedRuns, job.totalRuns]).toEqual([3, 'dead_letter', 5, 6]);
    // why it moved: the count and the error of the run that moved it (its first failed task's)
    expect(job.lastError).toBe('dead letter after 3 failed runs in a row; last error: m: disk full at 5000');
    const alarms = await t.db.alarm.findMany({ where: { jobId } });
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ type: 'dead_letter', channel: 'log', status: 'pending' });
    // Still failing (manual trigger while dead-lettered): no second alarm.
    await once('failed', 6000);
    expect(await t.db.alarm.count({ where: { jobId } })).toBe(1);
  });
});

describe('handler stats', () => {
  it('stats upsert agrees with the task rows and task_logs', async () => {
    const handler = 'stats.work';
    const jobId = await insertJob(t.db, { maxRetries: 1, backoffBaseSeconds: 0, steps: [{ key: 'm', handler }] });
    const outcomes: ('success' | 'failed' | 'timeout')[][] = [['success'], ['failed', 'success'], ['timeout', 'failed'], ['failed', 'timeout'], ['success']];
    let ms = 0;
    for (const seq of outcomes) {
      await fire(jobId, at(ms));
      // attempt 1: claimed 40 ms late, runs 120 ms; attempt 2 (no backoff): claimed at once, runs 240 ms
      let clock = ms + 40;
      for (const outcome of seq) {
        const [x] = await claimTasks(t.db, { ...NODE, handlers: [handler] }, at(clock));
        clock += 120 * x.attempt;
        await completeTask(t.db, { taskId: x.id, attempt: x.attempt, nodeId: NODE.nodeId, outcome }, at(clock));
      }
      ms += 10_000;
    }
    const merged = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler } }));
    expect(merged).toHaveLength(1);
    const m = merged[0]!;
    const row = {
      stat_date: m.statDate, success: m.success, failure: m.failure, timeout: m.timeout, dead_letter: m.deadLetter,
      duration_buckets: m.durationBuckets, total_duration_ms: m.totalDurationMs, max_duration_ms: m.maxDurationMs,
      total_lateness_ms: m.totalLatenessMs, lateness_count: m.latenessCount,
    };
    expect(row.stat_date.toISOString()).toContain('2026-03-0');
    const fromLogs = await t.pool.query(
      `SELECT count(*) FILTER (WHERE l.from_status = 'running' AND l.to_status = 'success')::int AS success,
              count(*) FILTER (WHERE l.from_status = 'running' AND l.to_status = 'failed')::int AS failure,
              count(*) FILTER (WHERE l.from_status = 'running' AND l.to_status = 'timeout')::int AS timeout,
              count(*) FILTER (WHERE l.to_status = 'dead')::int AS dead
         FROM task_logs l JOIN tasks t ON t.id = l.task_id WHERE t.handler = $1`, [handler]);
    const tasks = await t.pool.query(`SELECT status, count(*)::int AS n FROM tasks WHERE handler = $1 GROUP BY status`, [handler]);
    const byStatus = Object.fromEntries(tasks.rows.map((r) => [r.status, r.n]));
    expect({ success: row.success, failure: row.failure, timeout: row.timeout, dead: row.dead_letter }).toEqual(fromLogs.rows[0]);
    expect(row.success).toBe(byStatus.success);
    expect(row.dead_letter).toBe(byStatus.dead);
    expect([row.success, row.failure, row.timeout, row.dead_letter]).toEqual([3, 3, 2, 2]);
    expect(row.duration_buckets).toHaveLength(DURATION_BUCKET_COUNT);
    const finished = row.success + row.failure + row.timeout;
    expect(row.duration_buckets.reduce((a: number, b: number) => a + b, 0)).toBe(finished);
    // attempt 1 lasts 120 ms (bucket [100,250)), attempt 2 240 ms (same bucket)
    expect(row.duration_buckets[3]).toBe(finished); // bucket 3 = [100, 250)
    expect(Number(row.total_duration_ms)).toBe(5 * 120 + 3 * 240);
    expect(row.max_duration_ms).toBe(240);
    // lateness: first attempts only, started 40 ms after scheduled_for
    expect([Number(row.total_lateness_ms), row.lateness_count]).toEqual([5 * 40, 5]);
  });
});

describe('the one-statement trigger of an idle job (lib/engine/idle-trigger-batch.ts)', () => {
  const many = (jobId: string, db: PrismaClient, n: number, now: Date) =>
    Array.from({ length: n }, () => triggerRun(db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: now }, now));

  it('concurrent triggers of one job, through one client and through two, still see each earlier run', async () => {
    const other = createPrismaClient(t.url, 4);
    try {
      const discard = await insertJob(t.db, { blockStrategy: 'discard_later', steps: [{ key: 'm', handler: 'idle.d' }] });
      const d = await Promise.all([...many(discard, t.db, 20, T0), ...many(discard, other, 20, T0)]);
      expect(d.filter((r) => r.outcome === 'started')).toHaveLength(1);
      expect(d.filter((r) => r.outcome === 'skipped')).toHaveLength(39);
      expect((await t.db.job.findUniqueOrThrow({ where: { id: discard } })).totalRuns).toBe(1);
      expect(await t.db.task.count({ where: { jobId: discard } })).toBe(1);

      const serial = await insertJob(t.db, { blockStrategy: 'serial_execution', steps: [{ key: 'm', handler: 'idle.s' }] });
      const s = await Promise.all([...many(serial, t.db, 10, T0), ...many(serial, other, 10, T0)]);
      expect(s.filter((r) => r.outcome === 'started')).toHaveLength(1);
      expect(s.filter((r) => r.outcome === 'queued')).toHaveLength(19);
      // only the started run's task is claimable; the queued ones are gated
      expect(await t.db.task.count({ where: { jobId: serial, pendingParents: 0 } })).toBe(1);
    } finally {
      await other.$disconnect();
    }
  });

  it('triggers of different jobs that share a statement keep their own clock, rows and errors', async () => {
    const jobs = await Promise.all(Array.from({ length: 8 }, () => insertJob(t.db, { steps: [{ key: 'a', handler: 'idle.w' }, { key: 'b', handler: 'idle.w' }], edges: [{ from: 'a', to: 'b' }] })));
    const empty = await insertJob(t.db, { steps: [] });
    const deleted = await insertJob(t.db, {});
    await t.db.job.update({ where: { id: deleted }, data: { deletedAt: T0 } });
    const results = await Promise.allSettled([
      ...jobs.map((jobId, i) => fire(jobId, at(i * 1000))),
      fire(empty, at(100)),
      fire(deleted, at(200)),
    ]);
    for (const [i, jobId] of jobs.entries()) {
      const r = results[i]!;
      expect(r.status).toBe('fulfilled');
      const { run: made, outcome } = (r as PromiseFulfilledResult<Awaited<ReturnType<typeof fire>>>).value;
      expect(outcome).toBe('started');
      expect(made).toMatchObject({ jobId, status: 'pending', createdAt: at(i * 1000) });
      const tasks = await t.db.task.findMany({ where: { runId: made.id }, orderBy: { stepKey: 'asc' } });
      expect(tasks.map((x) => [x.stepKey, x.pendingParents, x.scheduleAt.getTime()])).toEqual([['a', 0, at(i * 1000).getTime()], ['b', 1, at(i * 1000).getTime()]]);
      expect(await t.db.taskDependency.count({ where: { taskId: tasks[1]!.id, parentTaskId: tasks[0]!.id } })).toBe(1);
      expect((await t.db.job.findUniqueOrThrow({ where: { id: jobId } })).lastRunAt).toEqual(at(i * 1000));
    }
    // a job without steps is complete at once (the transaction path)
    const e = results[jobs.length]!;
    expect(e.status === 'fulfilled' && e.value.run.status).toBe('success');
    const gone = results[jobs.length + 1]!;
    expect(gone.status === 'rejected' && isDomainError(gone.reason) && gone.reason.code).toBe('not_found');
  });

  it('callers that trigger again as soon as they are answered share a statement with the ones waiting', async () => {
    const db = createPrismaClient(t.url, 4);
    const jobs = await Promise.all(Array.from({ length: 40 }, () => insertJob(t.db, { steps: [{ key: 'm', handler: 'idle.share' }] })));
    const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
    const query = proto.query;
    let inserts = 0;
    proto.query = function (this: unknown, ...args: unknown[]) {
      const q = args[0] as string | { text?: string };
      if ((typeof q === 'string' ? q : q?.text ?? '').includes('tickflow:insert-runs')) inserts++;
      return query.apply(this, args);
    };
    try {
      let next = 0;
      // four callers, each triggering its next job once the previous trigger answered
      const made = await Promise.all(Array.from({ length: 4 }, async () => {
        const out: string[] = [];
        while (next < jobs.length) out.push((await triggerRun(db, { jobId: jobs[next++]!, trigger: 'api', triggeredBy: 'test', scheduledFor: T0 }, T0)).outcome);
        return out;
      }));
      expect(made.flat()).toEqual(Array(40).fill('started'));
      // one statement per round of the four callers (the first round may go in two); each
      // statement starting as soon as the one before ended would take about two per round
      expect(inserts).toBeLessThanOrEqual(12);
    } finally {
      proto.query = query;
      await db.$disconnect();
    }
    expect(await t.db.run.count({ where: { jobId: { in: jobs } } })).toBe(40);
  });

  it('the insert statements read jobs, steps and edges by key, at a cost that keeps JIT away, whatever the statistics', async () => {
    // 3,000 jobs without statistics, one of them a 2,000-step chain: the planner knows the
    // table sizes but nothing of the keys' distribution
    await t.pool.query(`INSERT INTO jobs (key, name, schedule_kind) SELECT 'plan.' || g, 'plan', 'manual' FROM generate_series(1, 3000) g`);
    await t.pool.query(`INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'idle.plan' FROM jobs WHERE key LIKE 'plan.%'`);
    const chain = await insertJob(t.db, { steps: Array.from({ length: 2000 }, (_, i) => ({ key: `s${i}`, handler: 'idle.plan' })), edges: Array.from({ length: 1999 }, (_, i) => ({ from: `s${i}`, to: `s${i + 1}` })) });
    const jobId = (await t.pool.query(`SELECT id FROM jobs WHERE key = 'plan.1'`)).rows[0].id as string;
    const c = new pg.Client({ connectionString: t.url });
    await c.connect();
    try {
      const jit = Number((await c.query(`SHOW jit_above_cost`)).rows[0].jit_above_cost);
      await c.query(`SET plan_cache_mode = force_generic_plan`);
      for (const lockedIdle of [false, true]) {
        let sql = '';
        let values: unknown[] = [];
        const capture = { async $queryRawUnsafe<T>(text: string, ...v: unknown[]) { sql = text; values = v; return [] as T; }, async $executeRawUnsafe() { return 0; } };
        const newRun = (job: string): NewRun => ({
          id: crypto.randomUUID(), jobId: job, trigger: 'api', triggeredBy: 'test', scheduledFor: T0, scheduleAt: null, status: 'pending',
          reason: null, params: {}, traceId: 'trace', parentRunId: null, gated: false, countOnJob: true,
        });
        await insertRuns(capture, [newRun(jobId), newRun(chain)], T0, { lockedIdle });
        const name = `plan_${lockedIdle}`;
        await c.query(`PREPARE ${name} AS ${sql}`);
        const lit = values.map((v) => pg.escapeLiteral(Array.isArray(v) ? `{${v.join(',')}}` : String(v))).join(', ');
        const plan = (await c.query(`EXPLAIN EXECUTE ${name}(${lit})`)).rows.map((r) => r['QUERY PLAN'] as string);
        const cost = Number(/cost=[\d.]+\.\.([\d.]+)/.exec(plan[0]!)![1]);
        expect(cost, plan.join('\n')).toBeLessThan(jit);
        expect(plan.filter((l) => /Seq Scan on (jobs|job_steps|job_edges) |Scan using jobs_list_idx/.test(l)), plan.join('\n')).toEqual([]);
      }
    } finally {
      await c.end();
    }
  });

  const waitingOnALock = async () => {
    for (let i = 0; i < 5000; i++) {
      const { rows } = await t.pool.query(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted`);
      if (rows[0].n > 0) return;
    }
    throw new Error('no lock wait appeared');
  };

  it('a trigger of a job whose row another transaction holds waits for it and sees the run committed there', async () => {
    const jobId = await insertJob(t.db, { blockStrategy: 'discard_later', steps: [{ key: 'm', handler: 'idle.x' }] });
    let second: Promise<Awaited<ReturnType<typeof fire>>> | undefined;
    const first = await t.db.$transaction(async (tx) => {
      const made = await triggerRun(tx, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
      second = fire(jobId, at(1000));
      await waitingOnALock();
      return made;
    });
    expect(first.outcome).toBe('started');
    const late = await second!;
    expect(late.outcome).toBe('skipped');
    expect(late.run.reason).toBe(`blocked: previous run ${first.run.id} still active`);
    expect((await t.db.job.findUniqueOrThrow({ where: { id: jobId } })).totalRuns).toBe(1);
  });

  it('a run re-opened by a task retry is seen by the triggers of its job', async () => {
    const jobId = await insertJob(t.db, { blockStrategy: 'discard_later', steps: [{ key: 'm', handler: 'idle.r' }] });
    const done = await fire(jobId, T0);
    const [c] = await claimTasks(t.db, { ...NODE, handlers: ['idle.r'] }, at(10));
    await completeTask(t.db, { taskId: c!.id, attempt: c!.attempt, nodeId: NODE.nodeId, outcome: 'failed', error: 'boom' }, at(20));
    expect((await run(done.run.id)).status).toBe('failed');
    let next: Promise<Awaited<ReturnType<typeof fire>>> | undefined;
    await t.db.$transaction(async (tx) => {
      await retryTask(tx, c!.id, 'test', at(30));
      // the retry holds the job row until it commits: the trigger waits for it
      next = fire(jobId, at(40));
      await waitingOnALock();
    });
    expect(['pending', 'running']).toContain((await run(done.run.id)).status);
    const r = await next!;
    expect(r.outcome).toBe('skipped');
    expect(r.run.reason).toBe(`blocked: previous run ${done.run.id} still active`);
  });

  it('a job whose row is held does not hold up the triggers of other jobs', async () => {
    const busy = await insertJob(t.db, { steps: [{ key: 'm', handler: 'idle.b' }] });
    const idle = await insertJob(t.db, { steps: [{ key: 'm', handler: 'idle.i' }] });
    const holder = await t.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM jobs WHERE id = $1 FOR UPDATE', [busy]);
      let busyDone = false;
      const waiting = fire(busy, at(1)).then((r) => { busyDone = true; return r; });
      await waitingOnALock();
      const other = await fire(idle, at(2));
      expect(other.outcome).toBe('started');
      expect(busyDone).toBe(false);
      await holder.query('COMMIT');
      expect((await waiting).outcome).toBe('started');
    } finally {
      holder.release();
    }
  });

  it('inside a caller\'s transaction a trigger joins it: a refused trigger rolls the whole transaction back', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'm', handler: 'idle.t' }] });
    const slot = { jobId, trigger: 'schedule' as const, triggeredBy: 'test', scheduledFor: at(60_000) };
    await expect(t.db.$transaction(async (tx) => {
      expect((await triggerRun(tx, slot, T0)).outcome).toBe('started');
      // the same slot again, in the same transaction: the one-statement path (its own
      // autocommit statement) would not see the first run; the transaction path does
      await triggerRun(tx, slot, T0);
    })).rejects.toThrow(/runs_schedule_fire_uniq|Unique|unique/);
    expect(await t.db.run.count({ where: { jobId } })).toBe(0);
  });
});
