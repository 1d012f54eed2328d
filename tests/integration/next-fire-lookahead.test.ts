/**
 * The next fire of a job around look-ahead firing (docs/on-time.md "Next fire") against real PostgreSQL, with an
 * injected clock: for the seconds between the tick creating a slot's run ahead and that run's start, the jobs list,
 * the job page and the overview's Next 24 hours show that slot (not the slot after, where next_run_at already
 * points); once the run has started they show the following slot.
 */
import { describe, expect, it } from 'vitest';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { claimTasks, completeTask } from '../../lib/engine/index.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { getJob } from '../../lib/jobs/get-job.ts';
import { listJobs } from '../../lib/jobs/list-jobs.ts';
import { getOverview } from '../../lib/stats/get-overview.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { staggerOffsetMs } from '../../lib/schedule/stagger.ts';
import { insertJob } from './worker-fixtures.ts';

const t = useTestDatabase();
const LOOKAHEAD = 3000;
/** The slot: 03:00 UTC. A day later is the daily job's following slot. */
const S = new Date('2026-12-06T03:00:00.000Z');
const DAY = 86_400_000;
const at = (n: number) => new Date(S.getTime() + n);
const iso = (n: number) => at(n).toISOString();

async function views(jobId: string, now: Date) {
  const list = await listJobs(t.db, { q: 'nf-ahead', sort: 'key', dir: 'asc' }, SYSTEM_ACTOR, now);
  const job = await getJob(t.db, jobId, SYSTEM_ACTOR, now);
  const overview = await getOverview(t.db, now);
  return {
    list: list.items.find((j) => j.id === jobId)!,
    job,
    fires: overview.nextFires.find((f) => f.jobId === jobId),
  };
}

describe('next fire with a run created ahead of its slot', () => {
  it('is the ahead run\'s slot until that run starts, then the slot after, in the list, the job page and the overview', async () => {
    const daily = await insertJob(t.db, { key: 'nf-ahead-daily', cron: '0 3 * * *', nextRunAt: S });
    const once = await insertJob(t.db, { key: 'nf-ahead-once', scheduleKind: 'once', runAt: S, nextRunAt: S });

    // Before the look-ahead window: nothing created yet, next_run_at is the next fire.
    let v = await views(daily, at(-10_000));
    expect(v.list).toMatchObject({ nextRunAt: iso(0), nextFireAt: iso(0) });
    expect(v.fires?.fires[0]).toBe(iso(0));

    // 02:59:57.5: the tick creates both slots' runs ahead and moves next_run_at on (the once job ends: paused).
    expect((await runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD }, at(-2500))).ahead).toBe(2);

    v = await views(daily, at(-2000));
    // nextRunAt stays the tick's cursor (already the next day); the next fire is the slot about to fire.
    expect(v.list).toMatchObject({ nextRunAt: iso(DAY), nextFireAt: iso(0) });
    expect(v.job).toMatchObject({ nextRunAt: iso(DAY), nextFireAt: iso(0) });
    // The overview lists the job at that slot, though next_run_at lies just past its 24 h.
    expect(v.fires).toMatchObject({ fires: [iso(0)], count: 1 });

    const o = await views(once, at(-2000));
    expect(o.list).toMatchObject({ status: 'paused', nextRunAt: null, nextFireAt: iso(0) });
    expect(o.job).toMatchObject({ status: 'paused', nextFireAt: iso(0) });
    expect(o.fires).toMatchObject({ fires: [iso(0)], count: 1 });

    // A worker claims both tasks ahead and holds them until the slot: still not started, still the next fire.
    const claimed = await claimTasks(t.db, { nodeId: 'n1', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 10, leaseSeconds: 30, aheadMs: 500 }, at(-400));
    expect(claimed.map((c) => c.held)).toEqual([true, true]);
    v = await views(daily, at(-100));
    expect(v.list.nextFireAt).toBe(iso(0));
    expect(v.job.nextFireAt).toBe(iso(0));
    expect(v.fires?.fires[0]).toBe(iso(0));

    // The slot has come and the runs started: the next fire is the slot after (none for the once job).
    v = await views(daily, at(50));
    expect(v.list).toMatchObject({ nextRunAt: iso(DAY), nextFireAt: iso(DAY) });
    expect(v.job.nextFireAt).toBe(iso(DAY));
    expect(v.fires).toMatchObject({ fires: [iso(DAY)], count: 1 });
    const o2 = await views(once, at(50));
    expect(o2.list.nextFireAt).toBeNull();
    expect(o2.job.nextFireAt).toBeNull();
    expect(o2.fires).toBeUndefined();

    for (const task of claimed) {
      await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'n1', outcome: 'success', onlyTask: task.onlyTask }, at(80));
    }
    v = await views(daily, at(100));
    expect(v.list.nextFireAt).toBe(iso(DAY));
    expect(v.job.nextFireAt).toBe(iso(DAY));
  });

  it('a run created ahead whose slot has come but that no worker took yet is not a coming fire', async () => {
    const T = S.getTime() + 7 * DAY;
    const late = await insertJob(t.db, { key: 'nf-ahead-late', cron: '0 3 * * *', nextRunAt: new Date(T) });
    await runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD }, new Date(T - 2500));
    const before = await listJobs(t.db, { q: 'nf-ahead-late' }, SYSTEM_ACTOR, new Date(T - 1));
    expect(before.items[0]!.nextFireAt).toBe(new Date(T).toISOString());
    // No worker alive at the slot: the run waits to be claimed, late; the next fire is the following slot.
    const after = await listJobs(t.db, { q: 'nf-ahead-late' }, SYSTEM_ACTOR, new Date(T + 1000));
    expect(after.items[0]).toMatchObject({ id: late, nextFireAt: new Date(T + DAY).toISOString() });
  });

  it('sorted by next fire, a job whose run was created ahead sorts by that slot, on one page and across pages', async () => {
    const T = S.getTime() + 14 * DAY;
    const daily = await insertJob(t.db, { key: 'nf-sort-daily', cron: '0 3 * * *', nextRunAt: new Date(T) });
    const minute = await insertJob(t.db, { key: 'nf-sort-minute', cron: '1 3 * * *', nextRunAt: new Date(T + 60_000) });
    const paused = await insertJob(t.db, { key: 'nf-sort-paused', cron: '0 3 * * *', nextRunAt: new Date(T), status: 'paused' });
    await runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD }, new Date(T - 2500));
    // The daily job's next_run_at is now a day later than the other's; its next fire is sooner.
    const keys = async (dir: 'asc' | 'desc', limit: number, now: Date) => {
      const out: { id: string; nextFireAt: string | null }[] = [];
      let cursor: string | undefined;
      do {
        const page = await listJobs(t.db, { q: 'nf-sort-', sort: 'next_run_at', dir, limit, cursor }, SYSTEM_ACTOR, now);
        out.push(...page.items.map((j) => ({ id: j.id, nextFireAt: j.nextFireAt })));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return out.map((j) => j.id);
    };
    const before = new Date(T - 2000);
    expect(await keys('asc', 50, before)).toEqual([daily, minute, paused]);
    expect(await keys('asc', 1, before)).toEqual([daily, minute, paused]);
    expect(await keys('desc', 1, before)).toEqual([minute, daily, paused]);
    // Once the run has started (the slot has come and a worker took it), the daily job sorts by the next day.
    const claimed = await claimTasks(t.db, { nodeId: 'n1', handlers: ['builtin.noop'], group: 'default', labels: {}, limit: 10, leaseSeconds: 30 }, new Date(T));
    expect(claimed.filter((c) => c.jobId === daily)).toHaveLength(1); // (jobs of the tests before fire too)
    const after = new Date(T + 100);
    expect(await keys('asc', 50, after)).toEqual([minute, daily, paused]);
    expect(await keys('asc', 1, after)).toEqual([minute, daily, paused]);
  });

  it('with a stagger, the slot is the due instant (slot + offset), still coming after the nominal slot has passed', async () => {
    const T = S.getTime() + 21 * DAY;
    const id = await insertJob(t.db, { key: 'nf-stagger', cron: '0 3 * * *' });
    // A one-hour stagger: the job's offset (hashed from its id) puts its due instant well after the nominal slot.
    const offset = staggerOffsetMs(id, 3600);
    const due = T + offset;
    await t.pool.query(`UPDATE jobs SET stagger_seconds = 3600, next_run_at = $2 WHERE id = $1`, [id, new Date(due)]);
    expect((await runTick(t.db, { limit: 100, lookaheadMs: LOOKAHEAD }, new Date(due - 2500))).ahead).toBeGreaterThanOrEqual(1);
    const now = new Date(due - 1000); // after the nominal slot T (but for an offset under a second)
    const list = await listJobs(t.db, { q: 'nf-stagger' }, SYSTEM_ACTOR, now);
    expect(list.items[0]).toMatchObject({ nextFireAt: new Date(due).toISOString(), nextRunAt: new Date(due + DAY).toISOString() });
    expect((await getJob(t.db, id, SYSTEM_ACTOR, now)).nextFireAt).toBe(new Date(due).toISOString());
    expect((await getOverview(t.db, now)).nextFires.find((f) => f.jobId === id)?.fires[0]).toBe(new Date(due).toISOString());
    // The job page's "Next 5 fire times" starts at that fire and lists the slots after it with the same offset.
    expect((await getJob(t.db, id, SYSTEM_ACTOR, now)).nextFireTimes).toEqual([0, 1, 2, 3, 4].map((d) => new Date(due + d * DAY).toISOString()));
  });

  it('the job page lists its next 5 fire times as due instants (slot + stagger), as its next fire and the overview do', async () => {
    // An hourly job in Asia/Kolkata (+05:30) with a 3000 s stagger, at 04:30 UTC = 10:00 local.
    const now = new Date('2027-02-01T04:30:00.000Z');
    const id = await insertJob(t.db, { key: 'nf-stagger-hourly', cron: '0 * * * *', timezone: 'Asia/Kolkata' });
    const offset = staggerOffsetMs(id, 3000);
    const HOUR = 3_600_000;
    // the tick's cursor as a save at `now` stores it (lib/jobs/job-input.ts computeNextRunAt): the first due instant
    // after now, the 10:00 local slot + offset (its offset is still to come), unless the job's offset is 0
    const first = offset > 0 ? now.getTime() + offset : now.getTime() + HOUR;
    await t.pool.query(`UPDATE jobs SET stagger_seconds = 3000, next_run_at = $2 WHERE id = $1`, [id, new Date(first)]);
    const want = [0, 1, 2, 3, 4].map((h) => new Date(first + h * HOUR).toISOString());
    const job = await getJob(t.db, id, SYSTEM_ACTOR, now);
    expect(job.nextFireAt).toBe(want[0]);
    expect(job.nextFireTimes).toEqual(want);
    expect((await getOverview(t.db, now)).nextFires.find((f) => f.jobId === id)?.fires.slice(0, 5)).toEqual(want);
    // Paused, the page lists what a resume at `now` would fire: the same instants.
    await t.pool.query(`UPDATE jobs SET status = 'paused' WHERE id = $1`, [id]);
    const paused = await getJob(t.db, id, SYSTEM_ACTOR, now);
    expect(paused.nextFireAt).toBeNull();
    expect(paused.nextFireTimes).toEqual(want);
  });
});
