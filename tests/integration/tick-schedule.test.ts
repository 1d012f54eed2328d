/**
 * The tick against real PostgreSQL with an injected clock (docs/engine-cases.md cases 1 and 2).
 */
import { describe, expect, it } from 'vitest';
import { cancelRun, claimTasks, completeTask } from '../../lib/engine/index.ts';
import { runTick } from '../../lib/engine/tick/run-tick.ts';
import { backfillRuns } from '../../lib/engine/backfill-runs.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { insertJob } from './worker-fixtures.ts';

const t = useTestDatabase();

const T = (s: string) => new Date(s);

async function runsOf(jobId: string) {
  return t.db.run.findMany({ where: { jobId }, orderBy: [{ scheduledFor: 'asc' }, { createdAt: 'asc' }] });
}
async function jobOf(id: string) {
  return t.db.job.findUniqueOrThrow({ where: { id } });
}
/** Only touches the given jobs: other tests' jobs in this database stay put (paused). */
async function isolate(...ids: string[]) {
  await t.db.job.updateMany({ where: { id: { notIn: ids }, status: 'active' }, data: { status: 'paused' } });
}

describe('docs/engine-cases.md case 1 — one-shot jobs never break the tick', () => {
  it('a once job fires exactly once, then is paused with next_run_at null; a bad row is marked; others keep firing', async () => {
    const runAt = T('2026-11-29T09:00:00Z');
    const once = await insertJob(t.db, { key: 'c1-once', scheduleKind: 'once', runAt, nextRunAt: runAt });
    const pastYear = await insertJob(t.db, {
      key: 'c1-year',
      cron: '0 0 9 29 11 * 2026',
      nextRunAt: runAt,
    });
    const bad = await insertJob(t.db, { key: 'c1-bad', cron: 'this is not cron', nextRunAt: T('2026-11-29T08:59:00Z') });
    const badZone = await insertJob(t.db, { key: 'c1-badzone', cron: '* * * * *', timezone: 'Mars/Olympus', nextRunAt: T('2026-11-29T08:59:00Z') });
    const minutely = await insertJob(t.db, { key: 'c1-minutely', cron: '* * * * *', nextRunAt: runAt });
    await isolate(once, pastYear, bad, badZone, minutely);

    const r1 = await runTick(t.db, { limit: 10 }, T('2026-11-29T09:00:01Z'));
    expect(r1).toMatchObject({ jobs: 5, fired: 3, failed: 2, finished: 2 });

    for (const id of [once, pastYear]) {
      const j = await jobOf(id);
      expect(j.status).toBe('paused');
      expect(j.nextRunAt).toBeNull();
      const runs = await runsOf(id);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ trigger: 'schedule', scheduledFor: runAt });
    }
    for (const id of [bad, badZone]) {
      const j = await jobOf(id);
      expect(j.status).toBe('paused');
      expect(j.nextRunAt).toBeNull();
      expect(j.lastError).toMatch(/schedule cannot be evaluated/);
      expect(await runsOf(id)).toHaveLength(0);
    }
    expect((await jobOf(minutely)).nextRunAt).toEqual(T('2026-11-29T09:01:00Z'));

    // Later ticks: the once job never fires again, the minutely job keeps firing.
    for (const now of ['2026-11-29T09:01:00.200Z', '2026-11-29T09:02:00.300Z', '2026-11-29T09:03:00.100Z']) {
      await runTick(t.db, { limit: 10 }, T(now));
    }
    expect(await runsOf(once)).toHaveLength(1);
    expect(await runsOf(pastYear)).toHaveLength(1);
    const m = await runsOf(minutely);
    expect(m.map((r) => r.scheduledFor.toISOString())).toEqual([
      '2026-11-29T09:00:00.000Z',
      '2026-11-29T09:01:00.000Z',
      '2026-11-29T09:02:00.000Z',
      '2026-11-29T09:03:00.000Z',
    ]);
    expect((await jobOf(minutely)).nextRunAt).toEqual(T('2026-11-29T09:04:00Z'));
  });

  it('nothing fires outside start_at..end_at; past the end next_run_at becomes null', async () => {
    const j = await insertJob(t.db, {
      key: 'c1-window',
      cron: '*/10 * * * *',
      startAt: T('2026-11-29T10:00:00Z'),
      endAt: T('2026-11-29T10:20:00Z'),
      nextRunAt: T('2026-11-29T10:00:00Z'),
    });
    await isolate(j);
    expect((await runTick(t.db, { limit: 10 }, T('2026-11-29T09:59:59Z'))).jobs).toBe(0);
    for (const now of ['2026-11-29T10:00:00Z', '2026-11-29T10:10:00Z', '2026-11-29T10:20:00Z', '2026-11-29T10:30:00Z']) {
      await runTick(t.db, { limit: 10 }, T(now));
    }
    expect((await runsOf(j)).map((r) => r.scheduledFor.toISOString())).toEqual([
      '2026-11-29T10:00:00.000Z',
      '2026-11-29T10:10:00.000Z',
      '2026-11-29T10:20:00.000Z',
    ]);
    const job = await jobOf(j);
    expect(job.nextRunAt).toBeNull();
    expect(job.status).toBe('paused');
  });
});

describe('docs/engine-cases.md case 2 — misfire after downtime never stalls and never floods', () => {
  // Down from 08:29:30Z to 10:21:30Z: slots 08:30..10:21 (112) were missed.
  const lastTick = T('2026-11-29T08:29:30Z');
  const restart = T('2026-11-29T10:21:30Z');

  async function setup(policy: 'skip' | 'fire_once' | 'fire_all') {
    const id = await insertJob(t.db, {
      key: `c2-${policy}`,
      cron: '* * * * *',
      misfirePolicy: policy,
      misfireMaxCatchup: 10,
      blockStrategy: 'serial_execution',
      nextRunAt: T('2026-11-29T08:29:00Z'),
    });
    await isolate(id);
    await runTick(t.db, { limit: 10 }, lastTick); // fires 08:29, then the workers "die"
    expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-29T08:30:00Z'));
    const r = await runTick(t.db, { limit: 10 }, restart);
    expect(r.jobs).toBe(1);
    const runs = (await runsOf(id)).filter((x) => x.scheduledFor.getTime() >= T('2026-11-29T08:30:00Z').getTime());
    return { id, runs };
  }

  async function keepsFiring(id: string) {
    expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-29T10:22:00Z'));
    expect((await jobOf(id)).status).toBe('active');
    await runTick(t.db, { limit: 10 }, T('2026-11-29T10:22:00.050Z'));
    const later = (await runsOf(id)).filter((x) => x.scheduledFor.getTime() === T('2026-11-29T10:22:00Z').getTime());
    expect(later).toHaveLength(1);
    expect(later[0]!.status).not.toBe('skipped');
    expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-29T10:23:00Z'));
  }

  it('skip: no catch-up run, one summarising skipped record, then 10:22:00Z', async () => {
    const { id, runs } = await setup('skip');
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ status: 'skipped', scheduledFor: T('2026-11-29T08:30:00Z') });
    expect(runs[0]!.reason).toMatch(/^misfire: 112 missed slots skipped from 2026-11-29T08:30:00.000Z to 2026-11-29T10:21:00.000Z/);
    await keepsFiring(id);
  });

  it('fire_once: exactly one catch-up run now (slot 10:21), the rest summarised, then 10:22:00Z', async () => {
    const { id, runs } = await setup('fire_once');
    const fired = runs.filter((r) => r.status !== 'skipped');
    expect(fired.map((r) => r.scheduledFor.toISOString())).toEqual(['2026-11-29T10:21:00.000Z']);
    const skipped = runs.filter((r) => r.status === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/^misfire: 111 missed slots/);
    await keepsFiring(id);
  });

  it('fire_all cap 10: the 10 most recent slots run, the other 102 are recorded skipped, then 10:22:00Z', async () => {
    const { id, runs } = await setup('fire_all');
    const fired = runs.filter((r) => r.reason === null || !r.reason.startsWith('misfire'));
    expect(fired.map((r) => r.scheduledFor.toISOString())).toEqual(
      Array.from({ length: 10 }, (_, i) => `2026-11-29T10:${String(12 + i).padStart(2, '0')}:00.000Z`),
    );
    expect(fired.every((r) => r.trigger === 'schedule')).toBe(true);
    const skipped = runs.filter((r) => r.reason?.startsWith('misfire'));
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toMatch(/^misfire: 102 missed slots skipped from 2026-11-29T08:30:00.000Z to 2026-11-29T10:11:00.000Z/);
    expect(runs).toHaveLength(11); // never a flood: cap + one summary
    await keepsFiring(id);
  });

  for (const strategy of ['discard_later', 'cover_early'] as const) {
    it(`fire_all with ${strategy}: the 10 catch-up runs of one tick are queued one behind the other and all run, in slot order`, async () => {
      const id = await insertJob(t.db, {
        key: `c2-fire-all-${strategy}`, cron: '* * * * *', misfirePolicy: 'fire_all', misfireMaxCatchup: 10,
        blockStrategy: strategy, nextRunAt: T('2026-11-29T08:29:00Z'), steps: [{ handler: `test.catch-up.${strategy}` }],
      });
      await isolate(id);
      await runTick(t.db, { limit: 10 }, lastTick); // fires 08:29; the workers "die" and the run is ended
      const [first] = await runsOf(id);
      await cancelRun(t.db, first!.id, 'test', lastTick);
      await runTick(t.db, { limit: 10 }, restart);
      const catchUp = (await runsOf(id)).filter((r) => r.scheduledFor.getTime() >= T('2026-11-29T10:12:00Z').getTime());
      expect(catchUp.map((r) => r.scheduledFor.toISOString())).toEqual(
        Array.from({ length: 10 }, (_, i) => `2026-11-29T10:${String(12 + i).padStart(2, '0')}:00.000Z`),
      );
      // None discarded, none cancelled: one started, nine queued behind it.
      expect(catchUp.map((r) => r.status)).toEqual(['pending', ...Array(9).fill('pending')]);
      expect(catchUp.slice(1).every((r) => /^queued: waiting for run/.test(r.reason ?? ''))).toBe(true);

      // They run one after the other, in slot order: each claim finds exactly the next one.
      let at = restart.getTime();
      const order: string[] = [];
      for (let i = 0; i < 10; i++) {
        const claimed = await claimTasks(t.db, { nodeId: 'catch-up', handlers: [`test.catch-up.${strategy}`], group: 'default', labels: {}, limit: 10, leaseSeconds: 60 }, new Date((at += 10)));
        expect(claimed).toHaveLength(1);
        order.push((await t.db.run.findUniqueOrThrow({ where: { id: claimed[0]!.runId } })).scheduledFor.toISOString());
        await completeTask(t.db, { taskId: claimed[0]!.id, attempt: 1, nodeId: 'catch-up', outcome: 'success' }, new Date((at += 10)));
      }
      expect(order).toEqual(catchUp.map((r) => r.scheduledFor.toISOString()));
      expect((await runsOf(id)).filter((r) => catchUp.some((c) => c.id === r.id)).every((r) => r.status === 'success')).toBe(true);
    });
  }

  it('a catch-up of many jobs is split into passes by the fire budget: every slot recorded once, the jobs left over untouched', async () => {
    // Five fire_all jobs, each with 16 due slots (10 catch-up runs + 6 skipped records: 16 writes).
    const ids: string[] = [];
    for (let n = 0; n < 5; n++) {
      ids.push(await insertJob(t.db, {
        key: `c2-budget-${n}`, cron: '* * * * *', misfirePolicy: 'fire_all', misfireMaxCatchup: 10,
        blockStrategy: 'discard_later', nextRunAt: T('2026-11-29T14:00:00Z'),
      }));
    }
    await isolate(...ids);
    const now = T('2026-11-29T14:15:00.500Z'); // slots 14:00..14:15 are due, all but the last missed
    const first = await runTick(t.db, { limit: 10, fireBudget: 40 }, now);
    // 16 + 16 + 16 >= 40 after the third job: the other two are left, still due, with no record
    expect(first).toMatchObject({ jobs: 5, leftOver: 2, more: true });
    const handled: string[] = [];
    const left: string[] = [];
    for (const id of ids) ((await runsOf(id)).length > 0 ? handled : left).push(id);
    expect(handled).toHaveLength(3);
    for (const id of left) expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-29T14:00:00Z'));

    const second = await runTick(t.db, { limit: 10, fireBudget: 40 }, now);
    expect(second).toMatchObject({ jobs: 2, leftOver: 0, more: false });
    for (const id of ids) {
      const runs = await runsOf(id);
      const slots = runs.map((r) => r.scheduledFor.toISOString());
      expect(new Set(slots).size).toBe(slots.length); // each slot once
      expect(runs.filter((r) => r.status !== 'skipped').map((r) => r.scheduledFor.toISOString())).toEqual(
        Array.from({ length: 10 }, (_, i) => `2026-11-29T14:${String(6 + i).padStart(2, '0')}:00.000Z`),
      );
      expect(runs.filter((r) => r.status === 'skipped')).toHaveLength(6); // 14:00..14:05, one record each
      expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-29T14:16:00Z'));
    }
    expect((await runTick(t.db, { limit: 10, fireBudget: 40 }, now)).jobs).toBe(0);
  });

  it('a short gap is recorded slot by slot (reason misfire)', async () => {
    const id = await insertJob(t.db, { key: 'c2-short', cron: '* * * * *', misfirePolicy: 'fire_once', nextRunAt: T('2026-11-29T12:00:00Z') });
    await isolate(id);
    await runTick(t.db, { limit: 10 }, T('2026-11-29T12:03:30Z'));
    const runs = await runsOf(id);
    expect(runs.map((r) => [r.scheduledFor.toISOString().slice(11, 16), r.status === 'skipped' ? r.reason : 'fired'])).toEqual([
      ['12:00', 'misfire'],
      ['12:01', 'misfire'],
      ['12:02', 'misfire'],
      ['12:03', 'fired'],
    ]);
  });
});

describe('exactly-once firing', () => {
  it('many tickers at once over 200 due jobs: every slot fires exactly once', async () => {
    const now = T('2026-11-30T00:00:00.500Z');
    const { rows } = await t.pool.query<{ id: string }>(
      `WITH j AS (
         INSERT INTO jobs (key, name, schedule_kind, cron_expression, next_run_at, block_strategy)
         SELECT 'eo-' || g, 'eo ' || g, 'cron', '* * * * *', '2026-11-30T00:00:00Z', 'serial_execution' FROM generate_series(1, 200) g
         RETURNING id)
       INSERT INTO job_steps (job_id, key, handler) SELECT id, 'main', 'builtin.noop' FROM j RETURNING job_id::text AS id`,
    );
    const ids = rows.map((r) => r.id);
    await isolate(...ids);
    const results = await Promise.all(Array.from({ length: 6 }, () => runTick(t.db, { limit: 25 }, now)));
    // Drain whatever the concurrent passes left.
    while ((await runTick(t.db, { limit: 50 }, now)).jobs > 0);
    expect(results.reduce((a, r) => a + r.fired, 0)).toBeGreaterThan(0);
    const counts = await t.pool.query<{ job_id: string; n: number }>(
      `SELECT job_id, count(*)::int AS n FROM runs WHERE job_id = ANY($1::text[]) GROUP BY job_id`,
      [ids],
    );
    expect(counts.rows).toHaveLength(200);
    expect(counts.rows.every((r) => r.n === 1)).toBe(true);
    const jobs = await t.db.job.findMany({ where: { id: { in: ids } } });
    expect(jobs.every((j) => j.nextRunAt?.toISOString() === '2026-11-30T00:01:00.000Z')).toBe(true);
  });

  it('a slot that already has a schedule run is not fired again and the job moves on', async () => {
    const id = await insertJob(t.db, { key: 'eo-dup', cron: '* * * * *', nextRunAt: T('2026-11-30T01:00:00Z') });
    await isolate(id);
    await runTick(t.db, { limit: 5 }, T('2026-11-30T01:00:01Z'));
    // Someone rewinds next_run_at (e.g. a restore): the backstop index refuses the second fire.
    await t.db.job.update({ where: { id }, data: { nextRunAt: T('2026-11-30T01:00:00Z') } });
    const r = await runTick(t.db, { limit: 5 }, T('2026-11-30T01:00:02Z'));
    expect(r.failed).toBe(0);
    expect(await runsOf(id)).toHaveLength(1);
    const job = await jobOf(id);
    expect(job.status).toBe('active');
    expect(job.nextRunAt).toEqual(T('2026-11-30T01:01:00Z'));
  });
});

describe('slots an operator backfilled while the tick was behind (docs/recovery.md)', () => {
  async function backfillAndRun(jobId: string, handler: string, slots: string[], now: Date) {
    const { runIds } = await backfillRuns(t.db, { jobId, slots: slots.map(T), actor: 'ops@example.com', from: T(slots[0]!), to: T(slots.at(-1)!) }, now);
    let at = now.getTime();
    for (const _ of runIds) {
      const [task] = await claimTasks(t.db, { nodeId: 'bf', handlers: [handler], group: 'default', labels: {}, limit: 1, leaseSeconds: 60 }, new Date((at += 10)));
      await completeTask(t.db, { taskId: task!.id, attempt: 1, nodeId: 'bf', outcome: 'success' }, new Date((at += 10)));
    }
    return runIds;
  }
  const bySlot = async (id: string) => (await runsOf(id)).map((r) => [r.scheduledFor.toISOString().slice(11, 16), r.trigger, r.status === 'skipped' ? r.reason : 'ran']);

  it('a misfire catch-up neither fires nor records them again (fire_all, skip)', async () => {
    const fireAll = await insertJob(t.db, { key: 'bf-fire-all', cron: '* * * * *', misfirePolicy: 'fire_all', misfireMaxCatchup: 10, nextRunAt: T('2026-11-30T12:00:00Z'), steps: [{ handler: 'test.bf.all' }] });
    const skip = await insertJob(t.db, { key: 'bf-skip', cron: '* * * * *', misfirePolicy: 'skip', nextRunAt: T('2026-11-30T12:00:00Z'), steps: [{ handler: 'test.bf.skip' }] });
    await isolate(fireAll, skip);
    // The workers were down from 12:00; the console was not: an operator backfilled 12:02 and 12:03.
    await backfillAndRun(fireAll, 'test.bf.all', ['2026-11-30T12:02:00Z', '2026-11-30T12:03:00Z'], T('2026-11-30T12:05:00Z'));
    await backfillAndRun(skip, 'test.bf.skip', ['2026-11-30T12:02:00Z'], T('2026-11-30T12:05:00Z'));
    await runTick(t.db, { limit: 10 }, T('2026-11-30T12:05:30Z'));
    expect(await bySlot(fireAll)).toEqual([
      ['12:00', 'schedule', 'ran'], ['12:01', 'schedule', 'ran'], ['12:02', 'backfill', 'ran'], ['12:03', 'backfill', 'ran'],
      ['12:04', 'schedule', 'ran'], ['12:05', 'schedule', 'ran'],
    ]);
    expect(await bySlot(skip)).toEqual([
      ['12:00', 'schedule', 'misfire'], ['12:01', 'schedule', 'misfire'], ['12:02', 'backfill', 'ran'], ['12:03', 'schedule', 'misfire'],
      ['12:04', 'schedule', 'misfire'], ['12:05', 'schedule', 'misfire'],
    ]);
    for (const id of [fireAll, skip]) expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-30T12:06:00Z'));
  });

  it('a slot backfilled by a clock ahead of the tick\'s is not created ahead again; the job moves past it', async () => {
    const id = await insertJob(t.db, { key: 'bf-ahead', cron: '0 * * * *', nextRunAt: T('2026-11-30T15:00:00Z'), steps: [{ handler: 'test.bf.ahead' }] });
    await isolate(id);
    // the console's clock reads 15:00:01 while the worker's reads 14:59:58
    await backfillAndRun(id, 'test.bf.ahead', ['2026-11-30T15:00:00Z'], T('2026-11-30T15:00:01Z'));
    await runTick(t.db, { limit: 10, lookaheadMs: 3000 }, T('2026-11-30T14:59:58Z'));
    expect(await bySlot(id)).toEqual([['15:00', 'backfill', 'ran']]);
    expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-30T16:00:00Z'));
  });

  it('a misfire summary does not count the slots a backfill ran, and is filed under the oldest skipped slot without a run', async () => {
    const id = await insertJob(t.db, { key: 'bf-summary', cron: '* * * * *', misfirePolicy: 'skip', nextRunAt: T('2026-11-30T12:00:00Z'), steps: [{ handler: 'test.bf.summary' }] });
    await isolate(id);
    await backfillAndRun(id, 'test.bf.summary', ['2026-11-30T12:00:00Z'], T('2026-11-30T13:00:00Z'));
    await runTick(t.db, { limit: 10 }, T('2026-11-30T13:00:30Z'));
    const skipped = (await runsOf(id)).filter((r) => r.status === 'skipped');
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.reason).toBe('misfire: 60 missed slots skipped from 2026-11-30T12:00:00.000Z to 2026-11-30T13:00:00.000Z; 1 backfilled slot in that range kept its run');
    // not beside the backfill run of 12:00: that slot has one record, its run
    expect(skipped[0]!.scheduledFor).toEqual(T('2026-11-30T12:01:00Z'));
    expect((await runsOf(id)).filter((r) => r.scheduledFor.getTime() === T('2026-11-30T12:00:00Z').getTime()).map((r) => r.trigger)).toEqual(['backfill']);
  });

  it('a slot due within the grace is not fired again when the tick passes many jobs at once', async () => {
    const a = await insertJob(t.db, { key: 'bf-batch-a', cron: '* * * * *', nextRunAt: T('2026-11-30T13:00:00Z'), steps: [{ handler: 'test.bf.batch' }] });
    const b = await insertJob(t.db, { key: 'bf-batch-b', cron: '* * * * *', nextRunAt: T('2026-11-30T13:00:00Z'), steps: [{ handler: 'test.bf.other' }] });
    await isolate(a, b);
    await backfillAndRun(a, 'test.bf.batch', ['2026-11-30T13:00:00Z'], T('2026-11-30T13:00:10Z'));
    await runTick(t.db, { limit: 10 }, T('2026-11-30T13:00:30Z'));
    expect(await bySlot(a)).toEqual([['13:00', 'backfill', 'ran']]);
    expect(await bySlot(b)).toEqual([['13:00', 'schedule', 'ran']]);
    for (const id of [a, b]) expect((await jobOf(id)).nextRunAt).toEqual(T('2026-11-30T13:01:00Z'));
  });
});

describe('clock changes that are not one hour long: the stored next_run_at', () => {
  it('Lord Howe */5 across the 30-minute gap and Havana 30 0 across the midnight fall-back', async () => {
    const howe = await insertJob(t.db, {
      key: 'dst-howe',
      cron: '*/5 * * * *',
      timezone: 'Australia/Lord_Howe',
      nextRunAt: T('2026-10-03T15:25:00Z'),
    });
    const havana = await insertJob(t.db, {
      key: 'dst-havana',
      cron: '30 0 * * *',
      timezone: 'America/Havana',
      nextRunAt: T('2024-11-03T04:30:00Z'),
    });
    await isolate(howe, havana);
    // 04:30Z is the first 00:30 (-04:00); the repeated 00:30 (-05:00, 05:30Z) does not fire again.
    await runTick(t.db, { limit: 10 }, T('2024-11-03T04:30:00.100Z'));
    expect((await jobOf(havana)).nextRunAt).toEqual(T('2024-11-04T05:30:00Z'));
    // 15:25Z is 01:55 +10:30; 02:00-02:30 does not exist, so the next slot is 02:30 +11:00 = 15:30Z (cron-parser said 16:00Z).
    await runTick(t.db, { limit: 10 }, T('2026-10-03T15:25:00.100Z'));
    expect((await jobOf(howe)).nextRunAt).toEqual(T('2026-10-03T15:30:00Z'));
    await runTick(t.db, { limit: 10 }, T('2026-10-03T15:30:00.100Z'));
    expect((await jobOf(howe)).nextRunAt).toEqual(T('2026-10-03T15:35:00Z'));
    expect((await runsOf(howe)).map((r) => r.scheduledFor.toISOString())).toEqual(['2026-10-03T15:25:00.000Z', '2026-10-03T15:30:00.000Z']);
  });
});
