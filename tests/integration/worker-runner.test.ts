/**
 * In-process workers against real PostgreSQL: the runner, timeouts and leases
 * (docs/engine-cases.md case 3), routing, and the node registry. Real timers of a few
 * seconds where the case is about time; every database timestamp comes from
 * the worker's clock.
 */
import { describe, expect, it } from 'vitest';
import { cancelRun, releaseTasks, retryTask, triggerRun } from '../../lib/engine/index.ts';
import { markOfflineNodes } from '../../lib/engine/nodes/index.ts';
import { createWorker, type Worker } from '../../worker/create-worker.ts';
import type { Handler } from '../../worker/handlers/index.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob as insertDagJob } from './engine-fixtures.ts';
import { insertJob, testWorkerConfig, waitFor, type JobFixture, waitForFinalTask, useWorkers } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();

function worker(over: Parameters<typeof testWorkerConfig>[1] = {}): Worker {
  const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim', 'reap'], ...over }) });
  workers.push(w);
  return w;
}

/** Creates a manual job and triggers one run; returns the run's task ids by step key. */
async function runOf(f: JobFixture): Promise<{ jobId: string; runId: string; tasks: Record<string, string> }> {
  const jobId = await insertJob(t.db, { scheduleKind: 'manual', blockStrategy: 'serial_execution', ...f });
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
  const tasks = await t.db.task.findMany({ where: { runId: run.id } });
  return { jobId, runId: run.id, tasks: Object.fromEntries(tasks.map((x) => [x.stepKey, x.id])) };
}

async function task(id: string) {
  return t.db.task.findUniqueOrThrow({ where: { id } });
}
async function logsOf(taskId: string) {
  return t.db.taskLog.findMany({ where: { taskId }, orderBy: { id: 'asc' } });
}
const finalTask = (id: string, ms = 15_000) => waitForFinalTask(t.db, id, ms);

describe('runner', () => {
  it('registers a node advertising its handlers and runs a task end to end', async () => {
    const w = worker();
    await w.start();
    const node = await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: w.nodeId } });
    expect(node).toMatchObject({ status: 'online', group: 'default', pid: process.pid });
    expect(node.handlers).toEqual(expect.arrayContaining(['builtin.echo', 'builtin.sleep', 'http', 'sql']));
    // shell is off on this worker (no TICKFLOW_ALLOW_SHELL): not advertised, so not offered to jobs' steps
    expect(node.handlers).not.toContain('shell');

    const { tasks, runId } = await runOf({ steps: [{ handler: 'builtin.echo', payload: { hello: 'world' } }] });
    const done = await finalTask(tasks.main!);
    expect(done).toMatchObject({ status: 'success', attempt: 1, output: { hello: 'world' }, lockedBy: w.nodeId });
    const run = await waitFor(async () => {
      const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      return r.status === 'success' ? r : null;
    }, 15_000, 'run success');
    expect(run.finishedAt).not.toBeNull();
  });

  it('a one-step run whose attempt lasts is marked running while it runs, with its attempt start (docs/engine.md "Run start")', async () => {
    const w = worker();
    await w.start();
    const { tasks, runId } = await runOf({ steps: [{ handler: 'builtin.sleep', payload: { ms: 4000 } }] });
    const run = await waitFor(async () => {
      const r = await t.db.run.findUniqueOrThrow({ where: { id: runId } });
      return r.status === 'running' ? r : null;
    }, 15_000, 'run running');
    const running = await task(tasks.main!);
    // marked while the attempt still runs, with the task's own start
    expect(running.status).toBe('running');
    expect(run.startedAt).toEqual(running.startedAt);
    await finalTask(tasks.main!);
  });

  it('a second process start is a new node: node ids never repeat', async () => {
    const a = worker();
    const b = worker();
    await a.register();
    await b.register();
    expect(a.nodeId).not.toBe(b.nodeId);
  });

  it('records failures, retries flaky handlers and buries after the last retry', async () => {
    const w = worker();
    await w.start();
    const flaky = await runOf({ maxRetries: 2, steps: [{ handler: 'builtin.flaky', payload: { failTimes: 2 } }] });
    const fail = await runOf({ maxRetries: 1, steps: [{ handler: 'builtin.fail', payload: { message: 'kaput' } }] });
    const ok = await finalTask(flaky.tasks.main!);
    expect(ok).toMatchObject({ status: 'success', attempt: 3 });
    const dead = await finalTask(fail.tasks.main!);
    expect(dead).toMatchObject({ status: 'dead', attempt: 2 });
    expect(dead.error).toMatch(/kaput/);
  });
});

describe('concurrency is a ceiling, hand-offs included (worker/claimer.ts freeSlots)', () => {
  it('chains handing their next step back while one-step tasks wait: never more attempts than slots', async () => {
    // 6 three-step chains and 12 one-step runs, 40 ms each, on 2 slots: a chain step's success
    // offers to take its next step while the freed slot tempts a claim of a waiting one-step task.
    const step = (key: string) => ({ key, handler: 'builtin.sleep', payload: { ms: 40 } });
    const runs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const jobId = await insertDagJob(t.db, { steps: ['a', 'b', 'c'].map(step), edges: [{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }] });
      runs.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() })).run.id);
    }
    for (let i = 0; i < 12; i++) {
      const jobId = await insertDagJob(t.db, { steps: [step('main')] });
      runs.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() })).run.id);
    }
    const w = worker({ concurrency: 2 });
    let most = 0;
    const sampler = setInterval(() => { most = Math.max(most, w.runner.count); }, 1);
    try {
      await w.start();
      await waitFor(async () => (await t.db.run.count({ where: { id: { in: runs }, status: 'success' } })) === runs.length, 30_000, 'all runs success');
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBe(2);
  });

  it('a fan-out wider than the slots never waits for the safety poll: a slot offered to a completion comes back to the claim', async () => {
    // root -> 60 no-op children -> join, on 4 slots with prefetch 4 and a 60 s safety poll. Each
    // child's success offers its slot to a hand-off that does not come (its child is the join);
    // when the answer is in, that slot must wake the claim, or the worker idles until the poll.
    const children = Array.from({ length: 60 }, (_, i) => ({ key: `c${i}`, handler: 'builtin.noop' }));
    const jobId = await insertDagJob(t.db, {
      steps: [{ key: 'root', handler: 'builtin.noop' }, ...children, { key: 'join', handler: 'builtin.noop' }],
      edges: [...children.map((c) => ({ from: 'root', to: c.key })), ...children.map((c) => ({ from: c.key, to: 'join' }))],
    });
    const w = worker({ concurrency: 4, prefetchMultiplier: 4, pollMs: 60_000 });
    await w.start();
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    // far below the 60 s poll: each claim round is a few statements
    await waitFor(async () => (await t.db.run.findUniqueOrThrow({ where: { id: run.id } })).status === 'success', 20_000, 'the run to succeed before the safety poll');
  }, 40_000);
});

describe('prefetch: tasks claimed ahead beyond the free slots wait for one (docs/on-time.md "Prefetch")', () => {
  it('8 runs due at one instant on 2 slots with prefetch multiplier 3: 6 claimed ahead, never more than 2 handlers at once, real starts recorded', async () => {
    const due = new Date(Date.now() + 1500);
    const runs: string[] = [];
    for (let i = 0; i < 8; i++) {
      const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms: 60 } }] });
      runs.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: due, scheduleAt: due })).run.id);
    }
    const w = worker({ concurrency: 2, prefetchMultiplier: 3, claimAheadMs: 500 });
    let running = 0;
    let held = 0;
    const sampler = setInterval(() => {
      running = Math.max(running, w.runner.running);
      held = Math.max(held, w.runner.count);
    }, 1);
    try {
      await w.start();
      await waitFor(async () => (await t.db.run.count({ where: { id: { in: runs }, status: 'success' } })) === runs.length, 30_000, 'all runs success');
    } finally {
      clearInterval(sampler);
    }
    expect(running).toBe(2);
    expect(held).toBe(6); // 3 per free slot, claimed before the instant
    // nothing is left marked held: each start was recorded or its completion cleared the mark
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM tasks WHERE run_id = ANY($1) AND held`, [runs])).rows[0].n).toBe(0);
    const starts = (await t.pool.query<{ started_at: Date }>(
      `SELECT started_at FROM tasks WHERE run_id = ANY($1) ORDER BY started_at`, [runs])).rows.map((r) => r.started_at.getTime());
    expect(starts.every((s) => s >= due.getTime())).toBe(true); // none before its instant
    // The tasks that waited for a slot record when they really started: two at a time, 60 ms apart.
    expect(starts[2]! - due.getTime()).toBeGreaterThanOrEqual(55);
    expect(starts[4]! - due.getTime()).toBeGreaterThanOrEqual(115);
  });
});

describe('the start of a task claimed held is recorded as it starts (worker/start-marker.ts)', () => {
  it('held until its slot, then taken by another node meanwhile: the start marker finds it gone, the attempt is aborted and its result refused', async () => {
    // 4 s ahead: a loaded machine may take seconds to start the worker, whose claim must come before the slot
    const due = new Date(Date.now() + 4000);
    const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms: 20_000 } }] });
    const runId = (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: due, scheduleAt: due })).run.id;
    // no heartbeat before the start: the start marker, not a lease renewal, finds the task gone
    const w = worker({ concurrency: 2, claimAheadMs: 4000, heartbeatMs: 60_000 });
    await w.start();
    const row = await waitFor(async () => (await t.db.task.findFirst({ where: { runId, status: 'running', held: true } })), 10_000, 'the task claimed ahead, held');
    // as if the reaper had handed it back and another node claimed it before the start came
    await t.pool.query(`UPDATE tasks SET locked_by = 'node-z' WHERE id = $1`, [row.id]);
    // the 20 s handler returns at once on its abort, well before any heartbeat
    const refused = await waitFor(async () => w.runner.completions.find((c) => c.taskId === row.id), 10_000, 'the attempt aborted at its start, its result refused');
    expect(Date.now()).toBeGreaterThanOrEqual(due.getTime());
    expect(refused).toMatchObject({ applied: false, late: true });
    expect(await task(row.id)).toMatchObject({ status: 'running', lockedBy: 'node-z', held: true, attempt: 1 });
    // leave nothing for a later test's reaper to hand back and run (the tests share a database)
    await cancelRun(t.db, runId, 'test');
  });

  it('a held task that starts has its start recorded while it runs (so the reaper would fail, not hand back, the attempt: engine-held-tasks.test.ts)', async () => {
    // 4 s ahead: a loaded machine may take seconds to start the worker, whose claim must come before the slot
    const due = new Date(Date.now() + 4000);
    const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms: 1000 } }] });
    const runId = (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: due, scheduleAt: due })).run.id;
    const w = worker({ concurrency: 2, claimAheadMs: 4000 });
    await w.start();
    await waitFor(async () => (await t.db.task.findFirst({ where: { runId, status: 'running', held: true } })), 10_000, 'the task claimed ahead, held');
    const row = await waitFor(async () => (await t.db.task.findFirst({ where: { runId, status: 'running', held: false } })), 10_000, 'its start recorded while it runs');
    expect(row.startedAt!.getTime()).toBeGreaterThanOrEqual(due.getTime());
    expect((await finalTask(row.id)).status).toBe('success');
  });
});

describe('a held task whose lease may have lapsed by the worker\'s clock is not started (Runner.leaseMayHaveLapsed)', () => {
  it('waiting for a slot past its lease with no renewal (a stalled heartbeat): dropped unstarted, left to the reaper', async () => {
    const now = new Date();
    const runs: string[] = [];
    for (const ms of [3000, 10]) {
      const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms } }] });
      runs.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: now })).run.id);
    }
    const w = worker({ concurrency: 1, prefetchMultiplier: 2, leaseSeconds: 2, heartbeatMs: 60_000, roles: ['claim'] });
    await w.start();
    const waiting = await waitFor(async () => (await t.db.task.findFirst({ where: { runId: runs[1], status: 'running', held: true } })), 10_000, 'the second task waiting for the slot, held');
    await waitFor(async () => (await t.db.run.findUniqueOrThrow({ where: { id: runs[0] } })).status === 'success', 15_000, 'the first run done');
    await waitFor(async () => w.runner.count === 0, 5000, 'the waiting task dropped');
    expect(w.runner.completions.filter((c) => c.taskId === waiting.id)).toEqual([]);
    expect(await task(waiting.id)).toMatchObject({ status: 'running', held: true, attempt: 1 });
    await cancelRun(t.db, runs[1]!, 'test'); // nothing left for a later test's reaper
  });
});

describe('a task handed back by the reaper and claimed again by the same worker runs once (Runner.supersede)', () => {
  it('a stalled worker\'s held task: handed back on the same attempt, re-claimed by that worker; its old copy is dropped, the handler runs once', async () => {
    const due = new Date(Date.now() + 2500);
    const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms: 100 } }] });
    const runId = (await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: due, scheduleAt: due })).run.id;
    const w = worker({ concurrency: 2, claimAheadMs: 2400, heartbeatMs: 60_000, pollMs: 100 });
    await w.start();
    const first = await waitFor(async () => (await t.db.task.findFirst({ where: { runId, status: 'running', held: true } })), 10_000, 'the task claimed ahead, held');
    // as if the worker had stalled past its lease: the reaper hands the task back (same attempt)
    await t.pool.query(`UPDATE tasks SET lease_until = now() - interval '1 second' WHERE id = $1`, [first.id]);
    expect(await releaseTasks(t.db, { nodeId: first.lockedBy!, tasks: [{ id: first.id, attempt: 1, scheduledFor: first.scheduledFor }], reason: 'lease expired', reaped: true })).toBe(1);
    // the same worker claims it again, on the same attempt, while its old copy still holds it
    await waitFor(async () => (await t.db.task.findFirst({ where: { id: first.id, status: 'running', lockedBy: first.lockedBy } })), 10_000, 'claimed again by the same worker');
    expect(w.runner.count).toBe(1);
    expect((await finalTask(first.id)).status).toBe('success');
    await new Promise((r) => setTimeout(r, 300)); // a second copy would have finished by now
    expect(w.runner.completions.filter((c) => c.taskId === first.id)).toEqual([expect.objectContaining({ applied: true, attempt: 1 })]);
    const logs = await logsOf(first.id);
    expect(logs.filter((l) => l.fromStatus === 'running' && l.toStatus === 'success')).toHaveLength(1);
  });
});

describe('a stopping worker hands back the tasks it claimed and never started (lib/engine/release-tasks.ts)', () => {
  const dueRuns = async (n: number, at: Date, ms: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const jobId = await insertDagJob(t.db, { steps: [{ key: 'main', handler: 'builtin.sleep', payload: { ms } }] });
      ids.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: at, scheduleAt: at })).run.id);
    }
    return ids;
  };
  const tasksOf = async (runs: string[]) => (await t.pool.query<{ id: string; status: string; attempt: number; locked_by: string | null; started_at: Date | null }>(
    `SELECT id, status::text, attempt, locked_by, started_at FROM tasks WHERE run_id = ANY($1) ORDER BY id`, [runs])).rows;

  it('a graceful stop hands back the prefetched tasks waiting for a slot at once; another worker runs them on their first attempt', async () => {
    const due = new Date(Date.now() + 1200);
    const runs = await dueRuns(4, due, 1500);
    const a = worker({ concurrency: 1, prefetchMultiplier: 4, claimAheadMs: 500, name: 'worker-a' });
    await a.start();
    await waitFor(async () => a.runner.running === 1, 10_000, 'one attempt running, three waiting');
    expect(a.runner.count).toBe(4);
    const stopping = a.stop({ graceMs: 10_000 });
    const back = await waitFor(async () => {
      const rows = (await tasksOf(runs)).filter((r) => r.status === 'pending');
      return rows.length === 3 ? rows : null;
    }, 5000, 'three tasks handed back');
    expect(back.every((r) => r.attempt === 1 && r.locked_by === null && r.started_at === null)).toBe(true);
    const log = await logsOf(back[0]!.id);
    expect(log.at(-1)).toMatchObject({ fromStatus: 'running', toStatus: 'pending', attempt: 1 });
    expect(log.at(-1)!.message).toMatch(/^handed back unstarted by .+: the worker is stopping$/);
    expect((await stopping).drained).toBe(true); // the running attempt finished within the grace

    const b = worker({ concurrency: 4, name: 'worker-b' });
    await b.start();
    await waitFor(async () => (await t.db.run.count({ where: { id: { in: runs }, status: 'success' } })) === 4, 15_000, 'all runs success');
    expect((await tasksOf(runs)).map((r) => r.attempt)).toEqual([1, 1, 1, 1]);
  });

  it('a second signal (handBackNow) hands back held and waiting tasks before the process exits', async () => {
    const due = new Date(Date.now() + 2500);
    const runs = await dueRuns(3, due, 10);
    const a = worker({ concurrency: 1, prefetchMultiplier: 4, claimAheadMs: 2000 });
    await a.start();
    await waitFor(async () => a.runner.count === 3, 10_000, 'three tasks held');
    await a.handBackNow(2000);
    expect((await tasksOf(runs)).map((r) => [r.status, r.attempt, r.locked_by])).toEqual([['pending', 1, null], ['pending', 1, null], ['pending', 1, null]]);
    expect(a.runner.count).toBe(0);
    await a.kill();
  });

  it('a forced stop hands back tasks held for a start still to come, without counting an attempt', async () => {
    const due = new Date(Date.now() + 2500);
    const runs = await dueRuns(2, due, 10);
    const a = worker({ concurrency: 2, claimAheadMs: 2000 });
    await a.start();
    await waitFor(async () => a.runner.count === 2, 10_000, 'two tasks held');
    expect(a.runner.running).toBe(0);
    await a.stop({ graceMs: 0 });
    const rows = await tasksOf(runs);
    expect(rows.map((r) => [r.status, r.attempt, r.locked_by])).toEqual([['pending', 1, null], ['pending', 1, null]]);
    const failed = await t.pool.query(`SELECT count(*)::int AS n FROM task_logs WHERE task_id = ANY($1) AND to_status IN ('failed', 'dead')`, [rows.map((r) => r.id)]);
    expect(failed.rows[0].n).toBe(0);
  });
});

describe('each attempt frees its own slot (worker/runner.ts release)', () => {
  it('a cancelled attempt whose handler ignores its abort, and the retried attempt of the same task beside it: both slots come back', async () => {
    const w = worker({ concurrency: 2 });
    await w.start();
    const { runId, tasks } = await runOf({ steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 1500 } }] });
    const id = tasks.main!;
    await waitFor(async () => (await task(id)).status === 'running' && w.runner.running === 1, 10_000, 'attempt 1 running');
    await cancelRun(t.db, runId, 'alice@example.com');
    await waitFor(async () => (await task(id)).status === 'cancelled', 5000, 'cancelled');
    // Attempt 2 of the same task id, claimed while attempt 1's handler still runs.
    await retryTask(t.db, id, 'alice@example.com');
    await waitFor(async () => w.runner.running === 2, 5000, 'both attempts running');
    await waitFor(async () => (await task(id)).status === 'success', 15_000, 'attempt 2 success');
    await waitFor(async () => w.runner.running === 0 && w.runner.count === 0, 5000, 'every slot free again');
    // The slots really are free: two more attempts run at once.
    const more = [await runOf({ steps: [{ handler: 'builtin.sleep', payload: { ms: 300 } }] }), await runOf({ steps: [{ handler: 'builtin.sleep', payload: { ms: 300 } }] })];
    await waitFor(async () => w.runner.running === 2, 5000, 'two new attempts at once');
    for (const r of more) expect((await finalTask(r.tasks.main!)).status).toBe('success');
  });
});

describe('docs/engine-cases.md case 3 — an expired lease never leads to two live attempts', () => {
  it('timeout 2 s, retries 1, a 5 s handler ignoring cancellation: "timed out, still running" until it returns, recorded timeout, retry only after', async () => {
    const w = worker({ concurrency: 2 });
    await w.start();
    const { tasks } = await runOf({
      timeoutSeconds: 2,
      maxRetries: 1,
      backoffBaseSeconds: 0,
      steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 5000 } }],
    });
    const id = tasks.main!;

    // Past the deadline the task is marked "timed out, still running" (docs/engine.md "Timeouts"):
    // still `running`, still holding its slot — the handler has not returned.
    const overdue = await waitFor(async () => (await logsOf(id)).find((l) => l.attempt === 1 && l.fromStatus === 'running' && l.toStatus === 'running'), 15_000, 'attempt 1 marked overdue');
    const claim1 = (await logsOf(id)).find((l) => l.attempt === 1 && l.toStatus === 'running' && l.fromStatus === 'pending')!;
    expect(overdue.message).toMatch(/timed out after 2s, still running/);
    const atOverdue = overdue.createdAt.getTime() - claim1.createdAt.getTime();
    expect(atOverdue).toBeGreaterThanOrEqual(1900);
    expect(atOverdue).toBeLessThan(4900);
    const row = await task(id);
    expect(row).toMatchObject({ status: 'running', attempt: 1 });
    expect(row.timedOutAt).not.toBeNull();
    expect(w.runner.count).toBe(1); // the slot stays taken

    // Recorded `timeout` when the handler returns (~5 s after the claim), once: its "success" is not used.
    const timeoutLog = await waitFor(async () => (await logsOf(id)).find((l) => l.attempt === 1 && l.toStatus === 'timeout'), 15_000, 'attempt 1 timeout');
    expect(timeoutLog.createdAt.getTime() - claim1.createdAt.getTime()).toBeGreaterThanOrEqual(4900);
    // the runner notes its completion once the database has answered, a moment after the log row is visible
    const noted = await waitFor(() => {
      const mine = w.runner.completions.filter((c) => c.taskId === id && c.attempt === 1);
      return mine.length ? mine : null;
    }, 5000, 'attempt 1 completion noted by the runner');
    expect(noted).toEqual([{ taskId: id, attempt: 1, outcome: 'timeout', applied: true, late: false }]);

    const dead = await finalTask(id, 20_000);
    expect(dead.status).toBe('dead'); // attempt 2 timed out too: retries used up
    expect(dead.attempt).toBe(2);
    expect(dead.output).toBeNull();
    expect(dead.error).toMatch(/timed out after 2s \(the handler ignored its abort and returned \d+ ms later\)/);

    const logs = await logsOf(id);
    const claim2 = logs.find((l) => l.attempt === 2 && l.toStatus === 'running' && l.fromStatus === 'pending')!;
    // Never two live attempts: attempt 2 is claimed only after attempt 1's handler returned.
    expect(claim2.createdAt.getTime()).toBeGreaterThanOrEqual(timeoutLog.createdAt.getTime());
    expect(claim2.id > timeoutLog.id).toBe(true);
    expect(logs.some((l) => l.toStatus === 'success')).toBe(false);
    expect(logs.map((l) => `${l.attempt}:${l.fromStatus ?? '-'}>${l.toStatus}`)).toEqual(
      expect.arrayContaining(['1:pending>running', '1:running>running', '1:running>timeout', '2:pending>running', '2:running>timeout']),
    );
  }, 60_000);

  it('a long handler within its timeout keeps its lease by heartbeat and is never reclaimed', async () => {
    // Lease 2 s, heartbeat every 300 ms, reaper every 200 ms, handler 6 s: the handler outlives
    // its lease three times over, and a busy machine still has ~1.7 s of slack per heartbeat.
    const w = worker({ leaseSeconds: 2, heartbeatMs: 300, reapMs: 200 });
    await w.start();
    const { tasks } = await runOf({ timeoutSeconds: 30, maxRetries: 3, steps: [{ handler: 'builtin.sleep', payload: { ms: 6000 } }] });
    const done = await finalTask(tasks.main!, 30_000);
    expect(done).toMatchObject({ status: 'success', attempt: 1 });
    const logs = await logsOf(tasks.main!);
    expect(logs.some((l) => /lease expired/.test(l.message))).toBe(false);
  }, 45_000);

  it('an attempt whose lease was taken over is aborted locally and its result refused', async () => {
    const w = worker({ leaseSeconds: 30, heartbeatMs: 60_000, roles: ['claim'] });
    await w.start();
    const { tasks } = await runOf({ timeoutSeconds: 30, maxRetries: 1, backoffBaseSeconds: 60, steps: [{ handler: 'builtin.sleep', payload: { ms: 20_000 } }] });
    const id = tasks.main!;
    await waitFor(async () => (await task(id)).status === 'running', 15_000, 'running');
    // The lease "expires" (as if this worker had hung): another reaper reclaims it.
    await t.db.task.update({ where: { id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    const { reclaimExpiredLeases } = await import('../../lib/engine/index.ts');
    expect(await reclaimExpiredLeases(t.db, { limit: 10 })).toHaveLength(1);
    // The next heartbeat learns the lease is lost and aborts the handler (builtin.sleep honours it).
    const hb = await w.heartbeat.runOnce(new Date());
    expect(hb.lost).toEqual([id]);
    await waitFor(async () => w.runner.completions.find((c) => c.taskId === id), 15_000, 'refused completion');
    expect(w.runner.completions.find((c) => c.taskId === id)).toMatchObject({ applied: false, late: true });
    expect(await task(id)).toMatchObject({ status: 'pending', attempt: 2 });
  });

  it('leaseRemainingMs() is -Infinity once the attempt was aborted because the task is no longer ours (cancelled, lease taken over)', async () => {
    // A handler about to do something it cannot undo checks leaseRemainingMs() (docs/handlers.md): after a
    // cancel or a lost lease the last renewal's time must not read as a lease still held.
    const seen: Record<string, { before: number; after: number }> = {};
    const probe: Handler = async (ctx) => {
      const before = ctx.leaseRemainingMs!();
      await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
      seen[ctx.taskId] = { before, after: ctx.leaseRemainingMs!() };
      return { ok: true };
    };
    const w = createWorker({ config: testWorkerConfig(t.url, { roles: ['claim'], leaseSeconds: 30, heartbeatMs: 60_000 }), handlers: { 'lease.probe': probe } });
    workers.push(w);
    await w.start();
    const cancelled = await runOf({ timeoutSeconds: 60, steps: [{ handler: 'lease.probe' }] });
    const lost = await runOf({ timeoutSeconds: 60, maxRetries: 1, backoffBaseSeconds: 60, steps: [{ handler: 'lease.probe' }] });
    await waitFor(async () => w.runner.runningAttempts().length === 2, 15_000, 'both attempts running');

    await cancelRun(t.db, cancelled.runId, 'test');
    const id = lost.tasks.main!;
    await t.db.task.update({ where: { id }, data: { leaseUntil: new Date(Date.now() - 1000) } });
    const { reclaimExpiredLeases } = await import('../../lib/engine/index.ts');
    expect(await reclaimExpiredLeases(t.db, { limit: 10 })).toHaveLength(1);
    expect((await w.heartbeat.runOnce(new Date())).lost).toEqual([id]);

    await waitFor(async () => Object.keys(seen).length === 2, 15_000, 'both handlers aborted');
    for (const taskId of [cancelled.tasks.main!, id]) {
      expect(seen[taskId]!.before).toBeGreaterThan(20_000);
      expect(seen[taskId]!.after).toBe(-Infinity);
    }
  });
});

describe('no timer above 2^31-1 ms', () => {
  it('a one-year task timeout neither fires at once nor overflows', async () => {
    const w = worker();
    await w.start();
    const year = 365 * 86400;
    const { tasks } = await runOf({ timeoutSeconds: year, steps: [{ handler: 'builtin.sleep', payload: { ms: 300 } }] });
    const done = await finalTask(tasks.main!);
    expect(done).toMatchObject({ status: 'success', attempt: 1, timeoutSeconds: year });
  });
});

describe('routing and node registry', () => {
  it('a node in group A never claims a group-B task', async () => {
    const a = worker({ group: 'A', concurrency: 4 });
    const b = worker({ group: 'B', concurrency: 4 });
    await a.start();
    await b.start();
    const ids: { group: string; id: string }[] = [];
    for (let i = 0; i < 6; i++) {
      for (const group of ['A', 'B']) {
        const r = await runOf({ routingNodeGroup: group, steps: [{ handler: 'builtin.sleep', payload: { ms: 50 } }] });
        ids.push({ group, id: r.tasks.main! });
      }
    }
    for (const { group, id } of ids) {
      const x = await finalTask(id);
      expect(x.status).toBe('success');
      expect(x.lockedBy).toBe(group === 'A' ? a.nodeId : b.nodeId);
    }
    // A group-C task waits: a claim pass of either worker takes nothing, a group-C worker takes it.
    const c = await runOf({ routingNodeGroup: 'C', steps: [{ handler: 'builtin.noop' }] });
    expect(await a.claimer.runOnce(new Date())).toBe(0);
    expect(await b.claimer.runOnce(new Date())).toBe(0);
    expect((await task(c.tasks.main!)).status).toBe('pending');
    const cw = worker({ group: 'C' });
    await cw.start();
    expect(await finalTask(c.tasks.main!)).toMatchObject({ status: 'success', lockedBy: cw.nodeId });
  });

  it('heartbeat records load; silent nodes go offline with one node_offline alarm', async () => {
    const w = worker();
    await w.register();
    const hb = await w.heartbeat.runOnce(new Date());
    expect(hb.status).toBe('online');
    const node = await t.db.workerNode.findUniqueOrThrow({ where: { nodeId: w.nodeId } });
    expect(node.memoryMb).toBeGreaterThan(0);
    expect(node.load1).not.toBeNull();

    const later = new Date(Date.now() + 120_000);
    const off = await markOfflineNodes(t.db, { offlineAfterSeconds: 60 }, later);
    expect(off.map((n) => n.nodeId)).toContain(w.nodeId);
    expect(await markOfflineNodes(t.db, { offlineAfterSeconds: 60 }, later)).toEqual([]); // once only
    const alarms = await t.db.alarm.findMany({ where: { type: 'node_offline', target: w.nodeId } });
    expect(alarms).toHaveLength(1);
    expect(alarms[0]).toMatchObject({ channel: 'log', status: 'pending' });
    // It beats again: back online.
    expect((await w.heartbeat.runOnce(new Date())).status).toBe('online');
  });

  it('an operator drain reaches the worker: it stops claiming', async () => {
    const w = worker();
    await w.start();
    await t.db.workerNode.update({ where: { nodeId: w.nodeId }, data: { status: 'draining' } });
    await w.heartbeat.runOnce(new Date());
    const r = await runOf({ steps: [{ handler: 'builtin.noop' }] });
    // A claim pass of the drained worker takes nothing; the same task is claimable by a worker that is not drained.
    expect(await w.claimer.runOnce(new Date())).toBe(0);
    expect((await task(r.tasks.main!)).status).toBe('pending');
    const other = worker();
    await other.start();
    expect(await finalTask(r.tasks.main!)).toMatchObject({ status: 'success', lockedBy: other.nodeId });
  });
});

describe('completion batcher (group commit)', () => {
  it('successes of one-step runs finishing together share a statement; every run ends once', async () => {
    const runs: string[] = [];
    for (let i = 0; i < 40; i++) {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', blockStrategy: 'discard_later', steps: [{ handler: 'builtin.noop' }] });
      runs.push((await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() })).run.id);
    }
    const w = worker({ concurrency: 16 });
    await w.start();
    await waitFor(async () => (await t.db.run.count({ where: { id: { in: runs }, status: 'success' } })) === runs.length, 30_000, 'all runs success');
    const { batches, completions } = w.runner.batcher.counters;
    expect(completions).toBe(40);
    expect(batches).toBeLessThan(completions); // claimed together, finished in one turn, committed together
    const logs = await t.db.taskLog.count({ where: { runId: { in: runs }, toStatus: 'success' } });
    expect(logs).toBe(40);
    const stats = await t.pool.query(`SELECT sum(success)::int AS n FROM handler_stats_daily WHERE handler = 'builtin.noop'`);
    expect(stats.rows[0].n).toBeGreaterThanOrEqual(40);
  });

  it('a batch refused as a whole is retried one by one: the bad attempt fails alone', async () => {
    const { CompletionBatcher } = await import('../../worker/completion-batcher.ts');
    const { claimTasks } = await import('../../lib/engine/index.ts');
    const { default: pino } = await import('pino');
    const handler = 'batcher.isolation';
    for (let i = 0; i < 2; i++) {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', blockStrategy: 'discard_later', steps: [{ handler }] });
      await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    }
    const nodeId = 'batcher-node';
    const [good, poisoned] = await claimTasks(t.db, { nodeId, handlers: [handler], group: 'default', labels: {}, limit: 10, leaseSeconds: 60 });
    const batcher = new CompletionBatcher({ db: t.db, clock: () => new Date(), logger: pino({ level: 'silent' }) });
    const input = (c: typeof good, output: unknown) => ({ taskId: c!.id, attempt: c!.attempt, nodeId, outcome: 'success' as const, onlyTask: c!.onlyTask, output });
    const [ok, bad] = await Promise.allSettled([batcher.complete(input(good, { fine: true })), batcher.complete(input(poisoned, { s: '\u0000' }))]);
    expect(batcher.counters).toEqual({ batches: 1, completions: 2 });
    expect(ok).toMatchObject({ status: 'fulfilled', value: { applied: true, runStatus: 'success' } });
    expect(bad.status).toBe('rejected');
    expect(await task(good!.id)).toMatchObject({ status: 'success', output: { fine: true } });
    expect((await task(poisoned!.id)).status).toBe('running');
  });
});

describe('a handler that ignores its timeout keeps what it holds until it returns (docs/engine.md "Timeouts")', () => {
  /** [claimed at, recorded timeout at] of attempt 1 of a task, by its task_logs rows. */
  async function window(id: string): Promise<[number, number]> {
    const logs = await logsOf(id);
    const claim = logs.find((l) => l.attempt === 1 && l.fromStatus === 'pending' && l.toStatus === 'running')!;
    const end = logs.find((l) => l.attempt === 1 && l.fromStatus === 'running' && l.toStatus !== 'running')!;
    return [claim.createdAt.getTime(), end.createdAt.getTime()];
  }

  it('serial_execution: the next run starts only after the timed-out handler returned — no overlap', async () => {
    const w = worker({ concurrency: 4 });
    await w.start();
    const jobId = await insertJob(t.db, {
      scheduleKind: 'manual', blockStrategy: 'serial_execution', timeoutSeconds: 1, maxRetries: 0,
      steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 3000 } }],
    });
    const first = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    const second = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
    expect(second.outcome).toBe('queued');
    const [a] = await t.db.task.findMany({ where: { runId: first.run.id } });
    const [b] = await t.db.task.findMany({ where: { runId: second.run.id } });
    await waitFor(async () => (await task(a!.id)).timedOutAt, 15_000, 'first attempt timed out, still running');
    // Past its timeout, the first run is still active and the second still queued.
    expect((await t.db.run.findUniqueOrThrow({ where: { id: first.run.id } })).status).toBe('running');
    expect((await task(b!.id)).status).toBe('pending');
    await finalTask(b!.id, 30_000);
    const [aStart, aEnd] = await window(a!.id);
    const [bStart] = await window(b!.id);
    expect(aEnd - aStart).toBeGreaterThanOrEqual(2900); // recorded when the 3 s handler returned
    expect(bStart).toBeGreaterThanOrEqual(aEnd);
    expect((await task(a!.id)).status).toBe('dead');
  }, 60_000);

  it('resource key: a task of another job with the same key waits for the timed-out handler to return', async () => {
    const w = worker({ concurrency: 4 });
    await w.start();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', timeoutSeconds: 1, maxRetries: 0, steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 2500 } }] });
      await t.pool.query(`UPDATE job_steps SET resource_key = 'overdue-key' WHERE job_id = $1::uuid`, [jobId]);
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      ids.push((await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).id);
    }
    await Promise.all(ids.map((id) => finalTask(id, 30_000)));
    const [w1, w2] = await Promise.all(ids.map(window));
    const [early, late] = w1![0] <= w2![0] ? [w1!, w2!] : [w2!, w1!];
    expect(early[1] - early[0]).toBeGreaterThanOrEqual(2400);
    expect(late[0]).toBeGreaterThanOrEqual(early[1]); // never two running attempts of the key
  }, 60_000);

  it('resource key: after a cancel, a task of another job with the same key waits for the cancelled handler to return (lib/engine/held-resource-keys.ts)', async () => {
    // no reaper: the worker itself must free the key once the handler returned
    const w = worker({ concurrency: 4, roles: ['claim'] });
    await w.start();
    const runs: { runId: string; id: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', maxRetries: 0, steps: [{ handler: 'builtin.ignore-abort', payload: { ms: 2500 } }] });
      await t.pool.query(`UPDATE job_steps SET resource_key = 'cancel-key' WHERE job_id = $1::uuid`, [jobId]);
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      runs.push({ runId: run.id, id: (await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).id });
    }
    await waitFor(async () => w.runner.running === 1, 10_000, 'one attempt of the key running');
    const [held, waiting] = (await task(runs[0]!.id)).status === 'running' ? [runs[0]!, runs[1]!] : [runs[1]!, runs[0]!];
    await cancelRun(t.db, held.runId, 'alice@example.com');
    expect((await task(held.id)).status).toBe('cancelled');
    const heldClaim = (await logsOf(held.id)).find((l) => l.fromStatus === 'pending' && l.toStatus === 'running')!;
    expect((await finalTask(waiting.id, 30_000)).status).toBe('success');
    const waitingClaim = (await logsOf(waiting.id)).find((l) => l.fromStatus === 'pending' && l.toStatus === 'running')!;
    // the cancelled handler ran its 2.5 s (it ignores its abort); the other task started after it
    expect(waitingClaim.createdAt.getTime() - heldClaim.createdAt.getTime()).toBeGreaterThanOrEqual(2400);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM running_resources WHERE resource_key = 'cancel-key'`)).rows[0].n).toBe(0);
  }, 60_000);

  it('resource key: a cancel that commits after the handler returned, before its completion, frees the key at once (not at the hold\'s end)', async () => {
    // The handler cancels its own run and returns at once: its completion is then refused, and the
    // worker must free the key the cancel left it holding (worker/runner.ts), not leave it to the
    // reaper (there is none here) at the hold's end, a 30 s lease later.
    const w = createWorker({
      config: testWorkerConfig(t.url, { roles: ['claim'], concurrency: 4 }),
      handlers: { 'test.cancel-self': async (ctx) => { await cancelRun(t.db, ctx.runId, 'alice@example.com'); return null; } },
    });
    workers.push(w);
    await w.start();
    for (let i = 0; i < 3; i++) {
      const jobId = await insertJob(t.db, { scheduleKind: 'manual', maxRetries: 0, steps: [{ handler: 'test.cancel-self' }] });
      await t.pool.query(`UPDATE job_steps SET resource_key = 'race-key' WHERE job_id = $1::uuid`, [jobId]);
      const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date() });
      const id = (await t.db.task.findFirstOrThrow({ where: { runId: run.id } })).id;
      expect((await finalTask(id)).status).toBe('cancelled');
      await waitFor(async () => (await t.pool.query(`SELECT count(*)::int AS n FROM running_resources WHERE resource_key = 'race-key'`)).rows[0].n === 0,
        5_000, 'the key freed by the worker');
    }
  }, 60_000);
});
