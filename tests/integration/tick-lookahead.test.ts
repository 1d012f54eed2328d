/**
 * Look-ahead firing (docs/on-time.md) against real PostgreSQL: runs of slots due within the
 * window are created ahead, exactly once across concurrent tickers, claimable only from their
 * slot; pause, edit and delete cancel runs whose slot is still in the future; block strategies
 * are decided at the slot, and a run that becomes active before that slot withdraws the run
 * created ahead of it; workers sleep until known due times, wake on NOTIFY, and a lost
 * NOTIFY is recovered by the safety pass.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../lib/auth/actor.ts';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { backfillRuns, claimTasks, completeTask, retryRun, retryTask, triggerRun, triggerRunAhead, triggerRuns } from '../../lib/engine/index.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { deleteJob, getJob, pauseJob, updateJob } from '../../lib/jobs/index.ts';
import pino from 'pino';
import type { ClaimedTask } from '../../lib/engine/types.ts';
import { Claimer } from '../../worker/claimer.ts';
import { createWorker } from '../../worker/create-worker.ts';
import type { Runner } from '../../worker/runner.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob, testWorkerConfig, useWorkers, waitFor, waitForFinalTask } from './worker-fixtures.ts';

const t = useTestDatabase();
const workers = useWorkers();
const alice: Actor = { kind: 'user', id: '00000000-0000-4000-8000-000000000001', name: 'alice@example.com', role: 'operator' };
const LOOKAHEAD = 3000;
const ms = (d: Date, n: number) => new Date(d.getTime() + n);

/** Each test owns the jobs it creates: everything active before it is paused (plain SQL). */
beforeEach(async () => {
  await t.pool.query(`UPDATE jobs SET status = 'paused' WHERE status = 'active'`);
});

async function tick(db: PrismaClient, now: Date) {
  return runTick(db, { limit: 100, lookaheadMs: LOOKAHEAD }, now);
}

async function claimAndComplete(db: PrismaClient, nodeId: string, now: Date) {
  const tasks = await claimTasks(db, { nodeId, handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 500, leaseSeconds: 30 }, now);
  for (const task of tasks) {
    await completeTask(db, { taskId: task.id, attempt: task.attempt, nodeId, outcome: 'success', onlyTask: task.onlyTask }, now);
  }
  return tasks.length;
}

describe('look-ahead runs are created exactly once across 4 tickers', () => {
  const clients: PrismaClient[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
  });

  it('every slot once, created before its slot, claimed only from it', async () => {
    for (let i = 0; i < 4; i++) clients.push(createPrismaClient(t.url, 3));
    const S = new Date('2026-12-01T00:00:00.000Z');
    const fiveSecond: string[] = [];
    const everySecond: string[] = [];
    for (let i = 0; i < 16; i++) fiveSecond.push(await insertJob(t.db, { key: `la-5s-${i}`, cron: '*/5 * * * * *', nextRunAt: ms(S, 5000) }));
    for (let i = 0; i < 4; i++) everySecond.push(await insertJob(t.db, { key: `la-1s-${i}`, cron: '* * * * * *', nextRunAt: ms(S, 1000) }));

    // 20 s of simulated time in 250 ms steps: the 4 tickers race at each step (their clocks a
    // few ms apart), then one of them claims and completes what is due.
    const end = 20_000;
    for (let at = 0; at <= end; at += 250) {
      await Promise.all(clients.map((c, i) => tick(c, ms(S, at + i * 7))));
      await claimAndComplete(clients[(at / 250) % 4]!, `node-${(at / 250) % 4}`, ms(S, at + 30));
    }

    const runs = await t.pool.query<{ job_id: string; scheduled_for: Date; created_at: Date; status: string }>(
      `SELECT job_id, scheduled_for, created_at, status::text FROM runs WHERE job_id = ANY($1) ORDER BY job_id, scheduled_for`,
      [[...fiveSecond, ...everySecond]],
    );
    const byJob = new Map<string, typeof runs.rows>();
    for (const r of runs.rows) byJob.set(r.job_id, [...(byJob.get(r.job_id) ?? []), r]);

    for (const id of fiveSecond) {
      const rs = byJob.get(id) ?? [];
      // Slots 5 s … 20 s were due; 20 s + 5 s is outside the window at 20 s.
      expect(rs.map((r) => r.scheduled_for.getTime() - S.getTime())).toEqual([5000, 10_000, 15_000, 20_000]);
      for (const r of rs) {
        expect(r.status).toBe('success');
        expect(r.created_at.getTime()).toBeLessThan(r.scheduled_for.getTime()); // created ahead
      }
    }
    for (const id of everySecond) {
      const rs = byJob.get(id) ?? [];
      const slots = rs.map((r) => r.scheduled_for.getTime() - S.getTime());
      // every second from 1 s on, each once, none skipped; the last ones may already exist ahead
      expect(new Set(slots).size).toBe(slots.length);
      expect(slots.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => (i + 1) * 1000));
      expect(rs.slice(0, 20).every((r) => r.status === 'success')).toBe(true);
    }
    const early = await t.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tasks WHERE job_id = ANY($1) AND (started_at < schedule_at OR schedule_at <> scheduled_for)`,
      [[...fiveSecond, ...everySecond]],
    );
    expect(early.rows[0]!.n).toBe(0);
  }, 120_000);
});

describe('pause, edit and delete cancel runs whose slot is still ahead', () => {
  const S = new Date('2026-12-02T00:00:00.000Z');

  it('pause and delete cancel the look-ahead run; an edit cancels it and the slot fires again with the new configuration', async () => {
    const paused = await insertJob(t.db, { key: 'la-pause', cron: '*/5 * * * * *', nextRunAt: ms(S, 5000) });
    const edited = await insertJob(t.db, { key: 'la-edit', cron: '*/5 * * * * *', nextRunAt: ms(S, 5000) });
    const deleted = await insertJob(t.db, { key: 'la-delete', cron: '*/5 * * * * *', nextRunAt: ms(S, 5000) });
    const r = await tick(t.db, ms(S, 2500));
    expect(r.ahead).toBe(3);

    await pauseJob(t.db, paused, alice, {}, ms(S, 3000));
    await updateJob(t.db, edited, { expectedVersion: 1, payload: { v: 2 } }, alice, ms(S, 3000));
    await deleteJob(t.db, deleted, alice, {}, ms(S, 3000));

    const runsOf = async (id: string) => (await t.pool.query<{ id: string; status: string; error: string | null; scheduled_for: Date }>(
      `SELECT id, status::text, error, scheduled_for FROM runs WHERE job_id = $1 ORDER BY created_at`, [id])).rows;
    for (const [id, word] of [[paused, 'paused'], [deleted, 'deleted'], [edited, 'edited']] as const) {
      const [run] = await runsOf(id);
      expect(run).toMatchObject({ status: 'cancelled', error: `cancelled before its slot: job ${word} by alice@example.com` });
      const tasks = await t.pool.query(`SELECT status::text FROM tasks WHERE run_id = $1`, [run!.id]);
      expect(tasks.rows.map((x) => x.status)).toEqual(['cancelled']);
    }
    // The edited job is due at the cancelled slot again; the next tick creates it with the new payload.
    const job = await t.db.job.findUniqueOrThrow({ where: { id: edited } });
    expect(job.nextRunAt?.toISOString()).toBe(ms(S, 5000).toISOString());
    await tick(t.db, ms(S, 3100));
    const editedRuns = await runsOf(edited);
    expect(editedRuns.map((x) => x.status)).toEqual(['cancelled', 'pending']);
    expect(editedRuns[1]!.scheduled_for.toISOString()).toBe(ms(S, 5000).toISOString());
    const task = await t.pool.query(`SELECT payload FROM tasks WHERE run_id = $1`, [editedRuns[1]!.id]);
    expect(task.rows[0].payload).toMatchObject({ v: 2 });

    // At the slot only the edited job's new run is claimable; the paused and deleted jobs fire nothing more.
    const claimed = await claimTasks(t.db, { nodeId: 'n1', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 50, leaseSeconds: 30 }, ms(S, 5000));
    expect(claimed.map((c) => c.jobId)).toEqual([edited]);
    await tick(t.db, ms(S, 5500));
    expect((await runsOf(paused)).length).toBe(1);
    expect((await runsOf(deleted)).length).toBe(1);
  });

  it("an edit of the schedule cancels the run created ahead and moves to the new schedule's next fire, not back to the old slot", async () => {
    // 02:00 UTC daily, its 02:00Z run created ahead; then the zone becomes New York, where 02:00 is 07:00Z in December
    const slot = new Date('2026-12-05T02:00:00.000Z');
    const job = await insertJob(t.db, { key: 'la-rezone', cron: '0 0 2 * * *', nextRunAt: slot });
    expect((await tick(t.db, ms(slot, -2500))).ahead).toBe(1);
    const view = await updateJob(t.db, job, { expectedVersion: 1, schedule: { kind: 'cron', cron: '0 0 2 * * *', timezone: 'America/New_York' } }, alice, ms(slot, -2000));
    const runs = await t.pool.query<{ status: string }>(`SELECT status::text FROM runs WHERE job_id = $1`, [job]);
    expect(runs.rows.map((r) => r.status)).toEqual(['cancelled']);
    // 02:00Z is no fire time of the new schedule: neither stored nor shown as the next fire
    expect(view.nextRunAt).toBe('2026-12-05T07:00:00.000Z');
    expect((await getJob(t.db, job, alice, ms(slot, -2000))).nextFireTimes.slice(0, 2)).toEqual(['2026-12-05T07:00:00.000Z', '2026-12-06T07:00:00.000Z']);
    // and nothing fires at the old slot
    await tick(t.db, ms(slot, 500));
    expect((await t.pool.query(`SELECT 1 FROM runs WHERE job_id = $1`, [job])).rowCount).toBe(1);
  });

  it('a run claimed ahead and cancelled before its slot never started: no start, no duration, on the run or its tasks', async () => {
    // The claim writes each held task's planned start (its slot, still to come) into started_at,
    // and a run of several tasks takes it as its own start at that claim; a pause before the slot
    // cancels them. The planned start must not stay: the run would have "started" after it ended.
    const P = ms(S, 120_000);
    const one = await insertJob(t.db, { key: 'la-held-cancel-1', cron: '*/5 * * * * *', nextRunAt: ms(P, 5000) });
    const two = await insertJob(t.db, { key: 'la-held-cancel-2', cron: '*/5 * * * * *', nextRunAt: ms(P, 5000),
      steps: [{ key: 'a', handler: 'builtin.noop' }, { key: 'b', handler: 'builtin.noop' }] });
    await tick(t.db, ms(P, 2500));
    const claimed = await claimTasks(t.db, { nodeId: 'n1', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 50, leaseSeconds: 30, aheadMs: LOOKAHEAD }, ms(P, 2600));
    expect(claimed.map((c) => [c.jobId, c.held]).sort()).toEqual([[one, true], [two, true], [two, true]].sort());
    const before = await t.pool.query(`SELECT started_at FROM runs WHERE job_id = $1`, [two]);
    expect(before.rows).toEqual([{ started_at: ms(P, 5000) }]); // the claim's planned start
    await pauseJob(t.db, one, alice, {}, ms(P, 3000));
    await pauseJob(t.db, two, alice, {}, ms(P, 3000));
    for (const job of [one, two]) {
      const rows = await t.pool.query(
        `SELECT r.status::text AS run, r.started_at AS "runStarted", r.finished_at AS "runFinished", r.duration_ms AS "runDuration",
                t.status::text AS task, t.started_at AS "taskStarted", t.completed_at AS "taskCompleted"
           FROM runs r JOIN tasks t ON t.run_id = r.id WHERE r.job_id = $1`, [job]);
      expect(rows.rows).toEqual(Array.from({ length: job === one ? 1 : 2 }, () => ({
        run: 'cancelled', runStarted: null, runFinished: ms(P, 3000), runDuration: null,
        task: 'cancelled', taskStarted: null, taskCompleted: ms(P, 3000),
      })));
    }
  });

  it('a run whose slot has come is not cancelled by a pause', async () => {
    const P = ms(S, 60_000);
    const job = await insertJob(t.db, { key: 'la-started', cron: '*/5 * * * * *', nextRunAt: ms(P, 5000) });
    await tick(t.db, ms(P, 2500));
    const claimed = await claimTasks(t.db, { nodeId: 'n1', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 50, leaseSeconds: 30 }, ms(P, 5001));
    expect(claimed.map((c) => c.jobId)).toEqual([job]);
    await pauseJob(t.db, job, alice, {}, ms(P, 5100));
    // A one-step run is still pending while its task runs (docs/engine.md "Run start"): not cancelled.
    const runs = await t.pool.query(`SELECT r.status::text AS run, t.status::text AS task FROM runs r JOIN tasks t ON t.run_id = r.id WHERE r.job_id = $1`, [job]);
    expect(runs.rows).toEqual([{ run: 'pending', task: 'running' }]);
  });

  it('a job with an active run is not fired ahead: its block strategy is decided at the slot', async () => {
    const B = ms(S, 120_000);
    const discard = await insertJob(t.db, { key: 'la-discard', cron: '*/5 * * * * *', blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    const serial = await insertJob(t.db, { key: 'la-serial', cron: '*/5 * * * * *', blockStrategy: 'serial_execution', nextRunAt: ms(B, 5000) });
    for (const jobId of [discard, serial]) await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: B }, B);

    const early = await tick(t.db, ms(B, 2500));
    expect(early.ahead).toBe(0);
    expect(early.deferredUntil?.toISOString()).toBe(ms(B, 5000).toISOString());
    const scheduled = async (id: string) => (await t.pool.query<{ status: string; reason: string | null }>(
      `SELECT status::text, reason FROM runs WHERE job_id = $1 AND trigger = 'schedule'`, [id])).rows;
    expect(await scheduled(discard)).toEqual([]);

    await tick(t.db, ms(B, 5000));
    expect(await scheduled(discard)).toEqual([{ status: 'skipped', reason: expect.stringMatching(/^blocked: previous run/) }]);
    expect(await scheduled(serial)).toEqual([{ status: 'pending', reason: expect.stringMatching(/^queued: waiting for run/) }]);
  });
});

describe('a run created ahead is not active before its slot: a run that comes first withdraws it', () => {
  const W = new Date('2026-12-02T01:00:00.000Z');
  type RunRow = { id: string; trigger: string; status: string; reason: string | null; error: string | null; scheduled_for: Date };
  const runsOf = async (id: string) => (await t.pool.query<RunRow>(
    `SELECT id, trigger::text, status::text, reason, error, scheduled_for FROM runs WHERE job_id = $1 ORDER BY created_at, id`, [id])).rows;
  const withdrawn = (cause: string) => `withdrawn before its slot: ${cause}; the slot fires again when due`;
  // Each test's steps have a handler of their own, so a claim takes only that test's tasks.
  const claim = (now: Date, handler: string) => claimTasks(t.db, { nodeId: 'n1', handlers: [handler], group: 'default', labels: {}, limit: 50, leaseSeconds: 30 }, now);

  it('discard_later: Run now before the slot starts at once, and the slot is decided when due against the manual run', async () => {
    // The failure this guards: Run now on a job firing every 5 s was skipped, "blocked" by the
    // scheduled run created ahead of a slot that had not come yet.
    const B = ms(W, 0);
    const stillRunning = await insertJob(t.db, { key: 'wd-discard-busy', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test1' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    const finished = await insertJob(t.db, { key: 'wd-discard-done', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test1' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    expect((await tick(t.db, ms(B, 2500))).ahead).toBe(2);

    const manual: Record<string, string> = {};
    for (const jobId of [stillRunning, finished]) {
      const r = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'alice@example.com', scheduledFor: ms(B, 3000) }, ms(B, 3000));
      expect(r.outcome).toBe('started');
      manual[jobId] = r.run.id;
      const [ahead, own] = await runsOf(jobId);
      // it names the run that came first, which the run page links
      expect(ahead).toMatchObject({ trigger: 'schedule', status: 'cancelled', error: withdrawn(`a manual run ${r.run.id} by alice@example.com came first`) });
      expect(own).toMatchObject({ trigger: 'manual', status: 'pending', reason: null });
      const job = await t.db.job.findUniqueOrThrow({ where: { id: jobId } });
      expect(job.nextRunAt?.toISOString()).toBe(ms(B, 5000).toISOString()); // the slot is due again
    }
    // The manual runs start at once; one of them ends before the slot.
    const started = await claim(ms(B, 3001), 'wd.test1');
    expect(started.map((c) => c.runId).sort()).toEqual(Object.values(manual).sort());
    const done = started.find((c) => c.jobId === finished)!;
    await completeTask(t.db, { taskId: done.id, attempt: done.attempt, nodeId: 'n1', outcome: 'success', onlyTask: done.onlyTask }, ms(B, 3010));

    // Before the slot: the job still running its manual run gets no run ahead; the other one does again.
    const early = await tick(t.db, ms(B, 3100));
    expect(early.ahead).toBe(1);
    await tick(t.db, ms(B, 5000));
    const busy = await runsOf(stillRunning);
    expect(busy.map((r) => [r.trigger, r.status])).toEqual([['schedule', 'cancelled'], ['manual', 'pending'], ['schedule', 'skipped']]);
    expect(busy[2]!.reason).toBe(`blocked: previous run ${manual[stillRunning]} still active`);
    expect(busy[2]!.scheduled_for.toISOString()).toBe(ms(B, 5000).toISOString());
    const free = await runsOf(finished);
    expect(free.map((r) => [r.trigger, r.status])).toEqual([['schedule', 'cancelled'], ['manual', 'success'], ['schedule', 'pending']]);
    expect(free[2]!.scheduled_for.toISOString()).toBe(ms(B, 5000).toISOString());
    expect((await claim(ms(B, 5001), 'wd.test1')).map((c) => c.runId)).toEqual([free[2]!.id]);
  });

  it('serial_execution queues the slot behind the manual run; cover_early lets the slot cover it', async () => {
    const B = ms(W, 60_000);
    const serial = await insertJob(t.db, { key: 'wd-serial', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test2' }], blockStrategy: 'serial_execution', nextRunAt: ms(B, 5000) });
    const cover = await insertJob(t.db, { key: 'wd-cover', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test2' }], blockStrategy: 'cover_early', nextRunAt: ms(B, 5000) });
    expect((await tick(t.db, ms(B, 2500))).ahead).toBe(2);
    const manual: Record<string, string> = {};
    for (const jobId of [serial, cover]) {
      const r = await triggerRun(t.db, { jobId, trigger: 'api', triggeredBy: 'token:ci', scheduledFor: ms(B, 3000) }, ms(B, 3000));
      expect(r.outcome).toBe('started'); // not queued behind, nor covering, a run whose slot has not come
      manual[jobId] = r.run.id;
    }
    expect((await claim(ms(B, 3001), 'wd.test2')).length).toBe(2);
    await tick(t.db, ms(B, 5000));
    const s = await runsOf(serial);
    expect(s.map((r) => [r.trigger, r.status])).toEqual([['schedule', 'cancelled'], ['api', 'pending'], ['schedule', 'pending']]);
    expect(s[2]!.reason).toBe(`queued: waiting for run ${manual[serial]} (serial_execution)`);
    const c = await runsOf(cover);
    expect(c.map((r) => [r.trigger, r.status])).toEqual([['schedule', 'cancelled'], ['api', 'cancelled'], ['schedule', 'pending']]);
  });

  it('a bulk trigger, a backfill and an operator re-opening a finished run withdraw it too', async () => {
    const B = ms(W, 120_000);
    const bulk = await insertJob(t.db, { key: 'wd-bulk', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test3' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    const backfilled = await insertJob(t.db, { key: 'wd-backfill', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test3' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    const reopened = await insertJob(t.db, { key: 'wd-reopen', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test3' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    // The job to re-open has a dead run from before.
    const old = await triggerRun(t.db, { jobId: reopened, trigger: 'manual', triggeredBy: 'test', scheduledFor: ms(B, 0) }, ms(B, 0));
    const [task] = await claim(ms(B, 1), 'wd.test3');
    await completeTask(t.db, { taskId: task!.id, attempt: task!.attempt, nodeId: 'n1', outcome: 'failed', error: 'boom', onlyTask: task!.onlyTask }, ms(B, 10));
    expect((await runsOf(reopened))[0]).toMatchObject({ id: old.run.id, status: 'failed' });
    expect((await tick(t.db, ms(B, 2500))).ahead).toBe(3);

    const runs = await triggerRuns(t.db, { jobId: bulk, trigger: 'api', triggeredBy: 'token:ci', scheduledFor: ms(B, 3000), runs: [{}, {}] }, ms(B, 3000));
    expect(runs.map((r) => r.outcome)).toEqual(['started', 'skipped']);
    const backfill = await backfillRuns(t.db, { jobId: backfilled, slots: [ms(B, -5000)], actor: 'alice@example.com', from: ms(B, -5000), to: ms(B, -5000) }, ms(B, 3000));
    await retryTask(t.db, task!.id, 'alice@example.com', ms(B, 3000));

    const causes: [string, string][] = [[bulk, `an api run ${runs[0]!.run.id} by token:ci came first`], [backfilled, `a backfill run ${backfill.runIds[0]} by alice@example.com came first`],
      [reopened, `run ${old.run.id} re-opened by alice@example.com`]];
    for (const [jobId, cause] of causes) {
      const ahead = (await runsOf(jobId)).find((r) => r.trigger === 'schedule')!;
      expect(ahead).toMatchObject({ status: 'cancelled', error: withdrawn(cause) });
      expect((await t.db.job.findUniqueOrThrow({ where: { id: jobId } })).nextRunAt?.toISOString()).toBe(ms(B, 5000).toISOString());
    }
    // Each job's slot is decided at the slot against the run that came first, still active.
    await tick(t.db, ms(B, 5000));
    for (const [jobId] of causes) {
      const slot = (await runsOf(jobId)).filter((r) => r.trigger === 'schedule').map((r) => r.status);
      expect(slot).toEqual(['cancelled', 'skipped']);
    }
  });

  it('a once job whose run was created ahead: Run now before it withdraws it, and the job still fires at its instant', async () => {
    const B = ms(W, 240_000);
    const once = await insertJob(t.db, { key: 'wd-once', scheduleKind: 'once', runAt: ms(B, 5000), steps: [{ handler: 'wd.once' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    expect((await tick(t.db, ms(B, 2500))).ahead).toBe(1);
    // Firing its only slot ahead ended the schedule: the system paused it.
    expect(await t.db.job.findUniqueOrThrow({ where: { id: once } })).toMatchObject({ status: 'paused', nextRunAt: null });
    const r = await triggerRun(t.db, { jobId: once, trigger: 'manual', triggeredBy: 'alice@example.com', scheduledFor: ms(B, 3000) }, ms(B, 3000));
    expect(r.outcome).toBe('started');
    // The withdrawn slot is the job's again: active, due at it.
    const job = await t.db.job.findUniqueOrThrow({ where: { id: once } });
    expect(job.status).toBe('active');
    expect(job.nextRunAt?.toISOString()).toBe(ms(B, 5000).toISOString());
    const [manual] = await claim(ms(B, 3001), 'wd.once');
    await completeTask(t.db, { taskId: manual!.id, attempt: 1, nodeId: 'n1', outcome: 'success', onlyTask: manual!.onlyTask }, ms(B, 3010));
    await tick(t.db, ms(B, 3100));
    const runs = await runsOf(once);
    expect(runs.map((x) => [x.trigger, x.status])).toEqual([['schedule', 'cancelled'], ['manual', 'success'], ['schedule', 'pending']]);
    expect(runs[2]!.scheduled_for.toISOString()).toBe(ms(B, 5000).toISOString());
    expect(await t.db.job.findUniqueOrThrow({ where: { id: once } })).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((await claim(ms(B, 5001), 'wd.once')).map((c) => c.runId)).toEqual([runs[2]!.id]);
  });

  it('a withdrawn run cannot be re-opened or retried once its slot has a run of its own: 409, nothing changed', async () => {
    const B = ms(W, 300_000);
    const job = await insertJob(t.db, { key: 'wd-reopen-slot', cron: '*/5 * * * * *', steps: [{ handler: 'wd.slot' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    await tick(t.db, ms(B, 2500));
    await triggerRun(t.db, { jobId: job, trigger: 'manual', triggeredBy: 'alice@example.com', scheduledFor: ms(B, 3000) }, ms(B, 3000));
    await tick(t.db, ms(B, 5000)); // the manual run is still active: the slot is recorded skipped
    const [withdrawnRun, , slotRun] = await runsOf(job);
    expect([withdrawnRun!.status, slotRun!.status]).toEqual(['cancelled', 'skipped']);
    const [withdrawnTask] = (await t.pool.query<{ id: string }>(`SELECT id FROM tasks WHERE run_id = $1`, [withdrawnRun!.id])).rows;
    await expect(retryTask(t.db, withdrawnTask!.id, 'alice@example.com', ms(B, 5100))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringMatching(new RegExp(`cancelled before it started, and its slot has a run of its own since \\(${slotRun!.id}\\)`)),
    });
    expect((await runsOf(job)).map((x) => x.status)).toEqual(['cancelled', 'pending', 'skipped']);
    // Nor retried as a new run: that slot's work would be done twice.
    await expect(retryRun(t.db, withdrawnRun!.id, 'alice@example.com', ms(B, 5100))).rejects.toMatchObject({
      code: 'conflict', message: expect.stringMatching(new RegExp(`its slot has run ${slotRun!.id} \\(skipped\\) of its own`)),
    });
    expect((await runsOf(job)).length).toBe(3);
  });

  it('a run whose slot has come is active: Run now is blocked by it (discard_later)', async () => {
    const B = ms(W, 180_000);
    const job = await insertJob(t.db, { key: 'wd-due', cron: '*/5 * * * * *', steps: [{ handler: 'wd.test4' }], blockStrategy: 'discard_later', nextRunAt: ms(B, 5000) });
    await tick(t.db, ms(B, 2500));
    const [scheduled] = await runsOf(job);
    const r = await triggerRun(t.db, { jobId: job, trigger: 'manual', triggeredBy: 'alice@example.com', scheduledFor: ms(B, 5001) }, ms(B, 5001));
    expect(r.outcome).toBe('skipped');
    expect(r.run.reason).toBe(`blocked: previous run ${scheduled!.id} still active`);
    expect((await runsOf(job))[0]).toMatchObject({ status: 'pending', error: null });
  });
});

describe('workers sleep until known due times, and NOTIFY or the safety pass wakes them', () => {
  it('a NOTIFY wakes a sleeping ticker and claimer: a new job fires on its slot long before the safety pass', async () => {
    const w = createWorker({ config: testWorkerConfig(t.url, { pollMs: 60_000, tickMs: 60_000, lookaheadMs: LOOKAHEAD, reapMs: 60_000 }) });
    workers.push(w);
    await w.start();
    await new Promise((r) => setTimeout(r, 300)); // first passes done: both loops now sleep 60 s
    const slot = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000);
    const jobId = await insertJob(t.db, { key: 'la-notify', cron: '* * * * * *', nextRunAt: slot });
    const run = await waitFor(() => t.db.run.findFirst({ where: { jobId, scheduledFor: slot } }), 10_000, 'the look-ahead run');
    expect(run.createdAt.getTime()).toBeLessThan(slot.getTime());
    const [task] = await t.db.task.findMany({ where: { runId: run.id } });
    const done = await waitForFinalTask(t.db, task!.id);
    expect(done.status).toBe('success');
    expect(done.startedAt!.getTime()).toBeGreaterThanOrEqual(slot.getTime());
  }, 30_000);

  it('claiming ahead: the task is claimed before its slot, held, started at the slot, and its real start recorded', async () => {
    let calledAt = 0;
    // every instant the worker's clock gave, so the recorded start can be told from the planned slot
    const readings = new Set<number>();
    const w = createWorker({
      config: testWorkerConfig(t.url, { pollMs: 60_000, tickMs: 60_000, lookaheadMs: LOOKAHEAD, claimAheadMs: 800, reapMs: 60_000 }),
      handlers: { 'test.ahead-mark': async () => { calledAt = Date.now(); return null; } },
      clock: () => {
        const now = new Date();
        readings.add(now.getTime());
        return now;
      },
    });
    workers.push(w);
    await w.start();
    await new Promise((r) => setTimeout(r, 300));
    const slot = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
    const jobId = await insertJob(t.db, { key: 'la-claim-ahead', cron: '* * * * * *', nextRunAt: slot, steps: [{ handler: 'test.ahead-mark' }] });
    const run = await waitFor(() => t.db.run.findFirst({ where: { jobId, scheduledFor: slot } }), 10_000, 'the look-ahead run');
    const [task] = await t.db.task.findMany({ where: { runId: run.id } });
    const done = await waitForFinalTask(t.db, task!.id);
    expect(done.status).toBe('success');
    const claimed = (await t.db.taskLog.findMany({ where: { taskId: task!.id, toStatus: 'running' } }))[0]!;
    expect(claimed.createdAt.getTime()).toBeLessThan(slot.getTime()); // claimed ahead
    expect(calledAt).toBeGreaterThanOrEqual(slot.getTime()); // not started early
    // the recorded start is the real one (a reading of the worker's clock, ms, taken as it called
    // the handler), not merely the planned slot; on a loaded machine a few ms may pass between the
    // reading and the call, so the reading itself is what is checked
    expect(done.startedAt!.getTime()).toBeGreaterThanOrEqual(slot.getTime());
    expect(readings.has(done.startedAt!.getTime())).toBe(true);
    expect(calledAt - done.startedAt!.getTime()).toBeGreaterThanOrEqual(0);
    expect(calledAt - done.startedAt!.getTime()).toBeLessThan(50);
  }, 30_000);

  it('a lost NOTIFY: the claimer finds a run created ahead on its safety pass and starts it at its slot', async () => {
    const w = createWorker({ config: testWorkerConfig(t.url, { pollMs: 1000, roles: ['claim'] }) });
    workers.push(w);
    await w.register();
    w.claimer.start(); // no listener: every notification is lost
    await new Promise((r) => setTimeout(r, 200)); // the first safety pass found nothing
    const jobId = await insertJob(t.db, { key: 'la-lost-task', scheduleKind: 'manual', nextRunAt: null });
    const slot = new Date(Date.now() + 1500);
    const run = await triggerRunAhead(t.db, { jobId, triggeredBy: 'test', scheduledFor: slot, scheduleAt: slot });
    const [task] = await t.db.task.findMany({ where: { runId: run!.id } });
    const done = await waitForFinalTask(t.db, task!.id);
    expect(done.status).toBe('success');
    expect(done.startedAt!.getTime()).toBeGreaterThanOrEqual(slot.getTime());
    // the safety pass (every 1000 ms) learnt the due time before it came: started on the slot,
    // not a whole safety interval after it (generous bound for a loaded machine)
    expect(done.startedAt!.getTime() - slot.getTime()).toBeLessThan(1000);
  }, 30_000);

  it('a wake whose instant passes while its claim is in flight gets another pass, not the safety interval', async () => {
    // The timer of a wake at the slot S fires a millisecond early (Node timers can), so the
    // claim runs at S - 1 ms and finds nothing; by the time it answers the clock reads S. The
    // wake must not be forgotten then: the next pass comes at once, not 30 s later.
    // A handler of its own: the claimer sees no task left over by the tests before.
    const jobId = await insertJob(t.db, { key: 'la-early-timer', scheduleKind: 'manual', nextRunAt: null, steps: [{ handler: 'test.early-timer' }] });
    const S = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000);
    const run = await triggerRunAhead(t.db, { jobId, triggeredBy: 'test', scheduledFor: S, scheduleAt: S });
    expect(run).not.toBeNull();
    let clockMs = S.getTime() - 30_000;
    let stepping = false;
    const clock = () => new Date(stepping ? clockMs++ : clockMs);
    const started: ClaimedTask[] = [];
    const runner = { count: 0, reserved: 0, start: (task: ClaimedTask) => void started.push(task) } as unknown as Runner;
    const claimer = new Claimer(
      { nodeId: 'la-early-node', group: 'default', labels: {}, handlers: ['test.early-timer'], concurrency: 4, leaseSeconds: 30, pollMs: 60_000 },
      { db: t.db, clock, logger: pino({ level: 'silent' }), runner },
    );
    try {
      claimer.start(); // its safety pass learns S and sleeps (its next safety pass is S + 30 s)
      await waitFor(async () => ((claimer as unknown as { wakes: { size: number } }).wakes.size > 0 ? true : null), 5000, 'the safety pass');
      clockMs = S.getTime() - 2;
      stepping = true; // each reading 1 ms later: wake() reads S - 2, the pass S - 1, after the claim S
      claimer.wake(S.getTime());
      await waitFor(async () => (started.length > 0 ? true : null), 5000, 'the claim at the slot');
      expect(started.map((task) => task.runId)).toEqual([run!.id]);
    } finally {
      await claimer.stop();
    }
  });

  it('a task that comes due while the safety look is in flight is claimed as due, not held as ahead', async () => {
    // The safety pass reads the clock at S - 1, looks for the next due task (S: within aheadMs,
    // so it claims) and claims; by then the clock reads S. A claim made "as of" S - 1 took the
    // task for one claimed ahead of its slot and marked it held (start recorded 250 ms late: a
    // kill in between handed it back on the same attempt instead of failing that attempt).
    const jobId = await insertJob(t.db, { key: 'la-due-during-look', scheduleKind: 'manual', nextRunAt: null, steps: [{ handler: 'test.due-during-look' }] });
    const S = new Date(Math.ceil((Date.now() + 3_600_000) / 1000) * 1000);
    expect(await triggerRunAhead(t.db, { jobId, triggeredBy: 'test', scheduledFor: S, scheduleAt: S })).not.toBeNull();
    let clockMs = S.getTime() - 1;
    const clock = () => new Date(clockMs++); // each reading 1 ms later: the pass reads S - 1, the claim S
    const started: ClaimedTask[] = [];
    const runner = { count: 0, reserved: 0, start: (task: ClaimedTask) => void started.push(task) } as unknown as Runner;
    const claimer = new Claimer(
      { nodeId: 'la-due-node', group: 'default', labels: {}, handlers: ['test.due-during-look'], concurrency: 4, leaseSeconds: 30, pollMs: 60_000, aheadMs: 100 },
      { db: t.db, clock, logger: pino({ level: 'silent' }), runner },
    );
    try {
      claimer.start();
      await waitFor(async () => (started.length > 0 ? true : null), 5000, 'the claim');
      expect(started.map((task) => [task.held, task.startedAt?.toISOString()])).toEqual([[false, S.toISOString()]]);
    } finally {
      await claimer.stop();
    }
  });

  it('a lost NOTIFY: the ticker finds a new job on its safety pass and still creates its run ahead', async () => {
    const w = createWorker({ config: testWorkerConfig(t.url, { tickMs: 1000, lookaheadMs: LOOKAHEAD, roles: ['tick'] }) });
    workers.push(w);
    await w.register();
    w.ticker.start(); // no listener
    await new Promise((r) => setTimeout(r, 200));
    const slot = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
    const jobId = await insertJob(t.db, { key: 'la-lost-job', cron: '* * * * * *', nextRunAt: slot });
    const run = await waitFor(() => t.db.run.findFirst({ where: { jobId, scheduledFor: slot } }), 10_000, 'the run of the slot');
    expect(run.createdAt.getTime()).toBeLessThan(slot.getTime());
  }, 30_000);
});
