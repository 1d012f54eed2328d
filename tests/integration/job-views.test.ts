/**
 * The console's views over runs and stats (docs/console.md "Grid", "Calendar", "Stats"):
 * the job grid (runs × steps in DAG order, keyset paging), the job calendar (runs per day in
 * the asked zone, counted in SQL), and the stats series (one job, per day or per hour, counted
 * from task_logs with the engine's rule) — zones, bounds and field-naming errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { getJobGrid } from '../../lib/runs/job-grid.ts';
import { getJobCalendar } from '../../lib/runs/job-calendar.ts';
import { getStatsSeries, lastHours } from '../../lib/stats/get-stats-series.ts';
import { isDomainError } from '../../lib/errors.ts';
import { DATE_MESSAGE } from '../../lib/stats/get-daily-stats.ts';

const t = useTestDatabase();
const NODE = { nodeId: 'views-node', group: 'default', labels: {}, leaseSeconds: 3600 };

beforeAll(async () => {
  await offerHandlers(t, ['views.a', 'views.b', 'views.one', 'views.other']);
});

/** Triggers a run scheduled at `at` and finishes every task it gets to, one claim at a time, each `ms` long. */
async function runJob(jobId: string, handlers: string[], at: string, outcome: 'success' | 'failed' = 'success', ms = 1000): Promise<string> {
  const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(at) }, new Date(at));
  let clock = new Date(at).getTime();
  for (;;) {
    const [task] = await claimTasks(t.db, { ...NODE, handlers, limit: 1 }, new Date(clock));
    if (!task) break;
    clock += ms;
    await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: NODE.nodeId, outcome }, new Date(clock));
  }
  return run.id;
}

async function fieldsOf(p: Promise<unknown>): Promise<Record<string, string>> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return (e.fields ?? {}) as Record<string, string>;
    throw e;
  }
  throw new Error('expected a validation error');
}

describe('job calendar', () => {
  it('counts a run at 23:30 UTC on the next day in Asia/Tokyo, by outcome, over 366 days in SQL', async () => {
    const job = await createJob(t.db, { key: 'views.cal', name: 'cal', schedule: { kind: 'manual' }, handler: 'views.one' }, SYSTEM_ACTOR);
    await runJob(job.id, ['views.one'], '2026-03-01T23:30:00Z');
    await runJob(job.id, ['views.one'], '2026-03-01T10:00:00Z', 'failed');
    await runJob(job.id, ['views.one'], '2025-02-27T12:00:00Z'); // 367 days before 2026-03-01: outside the year
    await runJob(job.id, ['views.one'], '2025-03-01T12:00:00Z'); // the first day of the year ending 2026-02-28

    const utc = await getJobCalendar(t.db, job.id, { tz: 'UTC', to: '2026-03-02' }, SYSTEM_ACTOR);
    expect(utc.from).toBe('2025-03-02');
    expect(utc.days).toEqual([{ date: '2026-03-01', runs: 2, succeeded: 1, failed: 1, active: 0 }]);

    const tokyo = await getJobCalendar(t.db, job.id, { tz: 'asia/tokyo', to: '2026-03-02' }, SYSTEM_ACTOR);
    expect(tokyo.timeZone).toBe('Asia/Tokyo');
    expect(tokyo.days).toEqual([
      { date: '2026-03-01', runs: 1, succeeded: 0, failed: 1, active: 0 },
      { date: '2026-03-02', runs: 1, succeeded: 1, failed: 0, active: 0 },
    ]);

    const earlier = await getJobCalendar(t.db, job.id, { tz: 'UTC', to: '2026-02-28' }, SYSTEM_ACTOR);
    expect(earlier.from).toBe('2025-02-28');
    expect(earlier.days.map((d) => d.date)).toEqual(['2025-03-01']);

    // default `to`: today in the zone of `now`
    const today = await getJobCalendar(t.db, job.id, { tz: 'Asia/Tokyo' }, SYSTEM_ACTOR, new Date('2026-03-01T23:30:00Z'));
    expect(today.to).toBe('2026-03-02');
  });

  it('cuts days as Intl does for a zone name PostgreSQL reads as an abbreviation or does not know (CET, IST, AET)', async () => {
    const job = await createJob(t.db, { key: 'views.cal.abbrev', name: 'cal', schedule: { kind: 'manual' }, handler: 'views.one' }, SYSTEM_ACTOR);
    // 22:30Z on 07-01 is 00:30 on 07-02 in Central European summer time, but 23:30 on 07-01 at a fixed +01:00
    await runJob(job.id, ['views.one'], '2026-07-01T22:30:00Z');
    // 20:00Z is 01:30 the next day in India (Intl's IST) and 22:00 or 23:00 the same day in Israel (PostgreSQL's IST)
    await runJob(job.id, ['views.one'], '2026-03-01T20:00:00Z');
    const daysIn = async (tz: string) => (await getJobCalendar(t.db, job.id, { tz, to: '2026-07-31' }, SYSTEM_ACTOR)).days.map((d) => d.date);
    expect(await daysIn('CET')).toEqual(['2026-03-01', '2026-07-02']);
    expect(await daysIn('IST')).toEqual(['2026-03-02', '2026-07-02']);
    // names of Intl alone (PostgreSQL: 'time zone "AET" not recognized', a 500 before)
    expect(await daysIn('AET')).toEqual(['2026-03-02', '2026-07-02']);
    expect(await daysIn('US/Pacific-New')).toEqual(['2026-03-01', '2026-07-01']);
    expect((await getJobCalendar(t.db, job.id, { tz: 'CET', to: '2026-07-31' }, SYSTEM_ACTOR)).timeZone).toBe('CET');
  });

  it('refuses a bad zone or date by field, and an unknown job', async () => {
    const job = await createJob(t.db, { key: 'views.cal.bad', name: 'cal', schedule: { kind: 'manual' }, handler: 'views.one' }, SYSTEM_ACTOR);
    expect(await fieldsOf(getJobCalendar(t.db, job.id, { tz: 'Mars/Base' }, SYSTEM_ACTOR))).toHaveProperty('tz');
    expect(await fieldsOf(getJobCalendar(t.db, job.id, { to: '2026-02-30' }, SYSTEM_ACTOR))).toHaveProperty('to');
    await expect(getJobCalendar(t.db, '7c1e0d7e-1111-4222-8333-444455556666', {}, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('takes `to` as every query takes a date (1970-01-01..2999-12-31, lib/stats/get-daily-stats.ts DateParam), starting a year that would reach before 1970 at 1970-01-01', async () => {
    const job = await createJob(t.db, { key: 'views.cal.epoch', name: 'cal', schedule: { kind: 'manual' }, handler: 'views.one' }, SYSTEM_ACTOR);
    const early = await getJobCalendar(t.db, job.id, { to: '1970-06-01' }, SYSTEM_ACTOR);
    expect([early.from, early.to, early.days]).toEqual(['1970-01-01', '1970-06-01', []]);
    expect((await getJobCalendar(t.db, job.id, { to: '1970-01-01' }, SYSTEM_ACTOR)).from).toBe('1970-01-01');
    expect((await getJobCalendar(t.db, job.id, { to: '1971-01-02' }, SYSTEM_ACTOR)).from).toBe('1970-01-02');
    expect(await fieldsOf(getJobCalendar(t.db, job.id, { to: '1969-12-31' }, SYSTEM_ACTOR))).toEqual({ to: DATE_MESSAGE });
    expect(await fieldsOf(getJobCalendar(t.db, job.id, { to: '3000-01-01' }, SYSTEM_ACTOR))).toEqual({ to: DATE_MESSAGE });
    expect(await fieldsOf(getStatsSeries(t.db, { from: '1969-12-31', to: '1970-01-01' }, SYSTEM_ACTOR))).toEqual({ from: DATE_MESSAGE });
  });
});

describe('job grid', () => {
  it('lists the latest runs oldest first, steps in DAG order, one cell per task, and pages to older runs', async () => {
    const job = await createJob(
      t.db,
      {
        key: 'views.grid',
        name: 'grid',
        schedule: { kind: 'manual' },
        // listed child first: the order must come from the edges, not the listing
        steps: [
          { key: 'load', handler: 'views.b' },
          { key: 'extract', handler: 'views.a' },
        ],
        edges: [{ from: 'extract', to: 'load', type: 'hard' }],
      },
      SYSTEM_ACTOR,
    );
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await runJob(job.id, ['views.a', 'views.b'], `2026-04-0${i + 1}T08:00:00Z`, 'success', 1500));

    const first = await getJobGrid(t.db, job.id, { limit: '2' }, SYSTEM_ACTOR);
    expect(first.steps).toEqual(['extract', 'load']);
    expect(first.runs.map((r) => r.id)).toEqual([ids[1], ids[2]]);
    const cell = first.cells[ids[2]!]!.load!;
    expect(cell).toMatchObject({ status: 'success', attempt: 1, durationMs: 1500, startedAt: '2026-04-03T08:00:01.500Z', finishedAt: '2026-04-03T08:00:03.000Z' });
    expect(first.nextCursor).not.toBeNull();

    const older = await getJobGrid(t.db, job.id, { limit: 2, cursor: first.nextCursor }, SYSTEM_ACTOR);
    expect(older.runs.map((r) => r.id)).toEqual([ids[0]]);
    expect(older.nextCursor).toBeNull();
  });

  it('refuses a bad limit or cursor by field', async () => {
    const job = await createJob(t.db, { key: 'views.grid.bad', name: 'grid', schedule: { kind: 'manual' }, handler: 'views.one' }, SYSTEM_ACTOR);
    expect(await fieldsOf(getJobGrid(t.db, job.id, { limit: '0' }, SYSTEM_ACTOR))).toHaveProperty('limit');
    expect(await fieldsOf(getJobGrid(t.db, job.id, { limit: '101' }, SYSTEM_ACTOR))).toHaveProperty('limit');
    await expect(getJobGrid(t.db, job.id, { cursor: 'garbage' }, SYSTEM_ACTOR)).rejects.toMatchObject({ code: 'validation' });
  });
});

describe('stats series', () => {
  async function statsZone(tz: string | null) {
    if (tz === null) await t.db.$executeRawUnsafe(`DELETE FROM settings WHERE key = 'stats.timezone'`);
    else await t.db.$executeRawUnsafe(`INSERT INTO settings (key, value) VALUES ('stats.timezone', to_jsonb($1::text)) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, tz);
  }

  it('per job and per day: only that job\'s attempts, days in the stats zone', async () => {
    const mine = await createJob(t.db, { key: 'views.stats.mine', name: 's', schedule: { kind: 'manual' }, handler: 'views.other' }, SYSTEM_ACTOR);
    const theirs = await createJob(t.db, { key: 'views.stats.theirs', name: 's', schedule: { kind: 'manual' }, handler: 'views.other' }, SYSTEM_ACTOR);
    await runJob(mine.id, ['views.other'], '2026-05-01T23:00:00Z', 'success', 30 * 60_000); // finishes 23:30 UTC
    await runJob(mine.id, ['views.other'], '2026-05-01T10:00:00Z', 'failed');
    await runJob(theirs.id, ['views.other'], '2026-05-01T11:00:00Z');

    const all = await getStatsSeries(t.db, { from: '2026-05-01', to: '2026-05-02' }, SYSTEM_ACTOR);
    expect(all.jobId).toBeNull();
    expect(all.daily.map((d) => [d.date, d.success, d.failure])).toEqual([
      ['2026-05-01', 2, 1],
      ['2026-05-02', 0, 0],
    ]);
    const utc = await getStatsSeries(t.db, { jobId: mine.id, from: '2026-05-01', to: '2026-05-02' }, SYSTEM_ACTOR);
    expect(utc.daily.map((d) => [d.date, d.success, d.failure])).toEqual([
      ['2026-05-01', 1, 1],
      ['2026-05-02', 0, 0],
    ]);
    await statsZone('Asia/Tokyo');
    try {
      const tokyo = await getStatsSeries(t.db, { jobId: mine.id, from: '2026-05-01', to: '2026-05-02' }, SYSTEM_ACTOR);
      expect(tokyo.timeZone).toBe('Asia/Tokyo');
      expect(tokyo.daily.map((d) => [d.date, d.success, d.failure])).toEqual([
        ['2026-05-01', 0, 1],
        ['2026-05-02', 1, 0],
      ]);
      expect(tokyo.daily[1]!.p50Ms).toBeGreaterThan(0);
      expect(tokyo.totals).toMatchObject([{ handler: 'views.other', success: 1, failure: 1 }]);
    } finally {
      await statsZone(null);
    }
  });

  it('per hour over the last 48 hours, hours in the stats zone, nothing older', async () => {
    const job = await createJob(t.db, { key: 'views.stats.hourly', name: 's', schedule: { kind: 'manual' }, handler: 'views.b' }, SYSTEM_ACTOR);
    await runJob(job.id, ['views.b'], '2026-06-10T23:29:00Z', 'success', 60_000); // finishes 23:30 UTC = 08:30 on the 11th in Tokyo
    await runJob(job.id, ['views.b'], '2026-06-09T00:00:00Z'); // 48.5 h before `now`: outside
    const now = new Date('2026-06-11T00:15:00Z');
    await statsZone('Asia/Tokyo');
    try {
      const s = await getStatsSeries(t.db, { granularity: 'hour', jobId: job.id }, SYSTEM_ACTOR, now);
      expect(s.granularity).toBe('hour');
      expect(s.daily).toHaveLength(48);
      expect(s.to).toBe('2026-06-11T09:00');
      expect(s.from).toBe('2026-06-09T10:00');
      expect(s.daily.filter((d) => d.success > 0).map((d) => [d.date, d.success])).toEqual([['2026-06-11T08:00', 1]]);
    } finally {
      await statsZone(null);
    }
    const utc = await getStatsSeries(t.db, { granularity: 'hour', jobId: job.id, hours: '2' }, SYSTEM_ACTOR, now);
    expect(utc.daily.map((d) => [d.date, d.success])).toEqual([
      ['2026-06-10T23:00', 1],
      ['2026-06-11T00:00', 0],
    ]);
    // every job (the tasks probed by key, lib/stats/detail-stats-sql.ts): the same hour, filtered by handler
    const all = await getStatsSeries(t.db, { granularity: 'hour', hours: '2', handler: 'views.b' }, SYSTEM_ACTOR, now);
    expect(all.daily.map((d) => [d.date, d.success])).toEqual([
      ['2026-06-10T23:00', 1],
      ['2026-06-11T00:00', 0],
    ]);
  });

  it('lastHours merges a repeated fall-back hour and starts at the first hour\'s wall-clock start', () => {
    const r = lastHours(3, 'America/New_York', new Date('2026-11-01T06:30:00Z')); // 01:30 EST, the second 01:00 hour
    expect(r.labels).toEqual(['2026-11-01T00:00', '2026-11-01T01:00']);
    expect(r.start.toISOString()).toBe('2026-11-01T04:00:00.000Z');
  });

  it('refuses bad fields by name', async () => {
    expect(await fieldsOf(getStatsSeries(t.db, { granularity: 'hour', from: '2026-01-01' }, SYSTEM_ACTOR))).toHaveProperty('from');
    expect(await fieldsOf(getStatsSeries(t.db, { granularity: 'minute' }, SYSTEM_ACTOR))).toHaveProperty('granularity');
    expect(await fieldsOf(getStatsSeries(t.db, { granularity: 'hour', hours: '500' }, SYSTEM_ACTOR))).toHaveProperty('hours');
    expect(await fieldsOf(getStatsSeries(t.db, { to: '2026-01-01' }, SYSTEM_ACTOR))).toHaveProperty('from');
    expect(await fieldsOf(getStatsSeries(t.db, { jobId: 'nope', from: '2026-01-01', to: '2026-01-02' }, SYSTEM_ACTOR))).toHaveProperty('jobId');
    // a job id that names no job is a filter matching nothing, not a 404 (README "REST")
    expect(await getStatsSeries(t.db, { jobId: '7c1e0d7e-1111-4222-8333-444455556666', from: '2026-01-01', to: '2026-01-02' }, SYSTEM_ACTOR)).toMatchObject({ jobId: '7c1e0d7e-1111-4222-8333-444455556666', totals: [] });
  });
});
