import { describe, expect, it } from 'vitest';
import { triggerRun } from '../../lib/engine/index.ts';
import { getOverview } from '../../lib/stats/get-overview.ts';
import { getRunningNow } from '../../lib/stats/running-now.ts';
import { COUNT_BUDGET, getUpcomingFires } from '../../lib/stats/upcoming-fires.ts';
import { useTestDatabase } from '../helpers/db.ts';
import { T0, at, claimStep, insertJob } from './engine-fixtures.ts';

const t = useTestDatabase();

describe('overview: running now and the next 24 h', () => {
  it('lists running tasks with job name, step and worker, longest first', async () => {
    const jobId = await insertJob(t.db, { steps: [{ key: 'extract' }, { key: 'load' }], edges: [{ from: 'extract', to: 'load' }] });
    await t.db.workerNode.create({ data: { nodeId: 'node-a', name: 'worker-one', host: 'h', pid: 1, handlers: ['test.work'] } });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    await claimStep(t.db, run!.id, 'extract', at(1000));
    const rows = await getRunningNow(t.db);
    const mine = rows.filter((r) => r.jobId === jobId);
    expect(mine).toEqual([expect.objectContaining({ runId: run!.id, jobName: 'engine test job', stepKey: 'extract', worker: 'worker-one', attempt: 1, startedAt: at(1000).toISOString() })]);
  });

  it('next fires follow the schedule rules: zone, window end and stagger, capped per job', async () => {
    const now = new Date('2026-03-07T12:00:00Z');
    const make = (key: string, data: Record<string, unknown>) =>
      t.db.job.create({ data: { key, name: key, scheduleKind: 'cron', timezone: 'UTC', status: 'active', ...data } as never });
    // Every 6 hours in New York across the spring-forward night, ending before the horizon.
    const ny = await make('tz.ny', { cronExpression: '0 */6 * * *', timezone: 'America/New_York', nextRunAt: new Date('2026-03-07T17:00:00Z'), endAt: new Date('2026-03-08T06:00:00Z') });
    // Every minute: capped.
    const busy = await make('busy', { cronExpression: '* * * * *', nextRunAt: new Date('2026-03-07T12:01:00Z') });
    // Beyond the horizon and paused jobs are left out.
    await make('later', { cronExpression: '0 0 1 1 *', nextRunAt: new Date('2027-01-01T00:00:00Z') });
    await make('paused', { cronExpression: '* * * * *', status: 'paused', nextRunAt: new Date('2026-03-07T12:01:00Z') });
    const list = await getUpcomingFires(t.db, now, { perJob: 10 });
    const byKey = new Map(list.map((x) => [x.jobKey, x]));
    expect([...byKey.keys()].sort()).toEqual(['busy', 'tz.ny']);
    expect(byKey.get('tz.ny')!.jobId).toBe(ny.id);
    // 12:00 and 18:00 EST on the 7th, 00:00 EST on the 8th; 06:00 on the 8th is after endAt.
    expect(byKey.get('tz.ny')!.fires).toEqual(['2026-03-07T17:00:00.000Z', '2026-03-07T23:00:00.000Z', '2026-03-08T05:00:00.000Z']);
    expect(byKey.get('tz.ny')).toMatchObject({ timezone: 'America/New_York', count: 3, countIsLowerBound: false, more: false });
    // 12:01 today to 12:00 tomorrow, both ends in: every fire counted, though only 10 are drawn.
    expect(byKey.get('busy')).toMatchObject({ jobId: busy.id, timezone: 'UTC', more: true, count: 1440, countIsLowerBound: false });
    expect(byKey.get('busy')!.fires).toHaveLength(10);
    // Capped, the dots spread over the whole day as the fires do (one per tenth of it), not the first 10 minutes.
    const busyFires = byKey.get('busy')!.fires.map((f) => new Date(f).getTime());
    expect(busyFires[0]).toBe(new Date('2026-03-07T12:01:00Z').getTime());
    expect(new Set(busyFires).size).toBe(10);
    expect(busyFires.at(-1)! - now.getTime()).toBeGreaterThan(20 * 3_600_000);
    expect([...busyFires].sort((a, b) => a - b)).toEqual(busyFires);
  });

  it('an overdue next fire (the tick was down for days) is listed once as due now: the slots missed meanwhile are not upcoming fires', async () => {
    const now = new Date('2026-06-07T12:30:00Z');
    await t.db.job.create({ data: { key: 'stale.hourly', name: 'stale', scheduleKind: 'cron', cronExpression: '0 * * * *', timezone: 'UTC', status: 'active', nextRunAt: new Date('2026-03-09T00:00:00Z') } as never });
    const stale = (await getUpcomingFires(t.db, now, { perJob: 5 })).find((j) => j.jobKey === 'stale.hourly')!;
    // the overdue slot, then 13:00 today to 12:00 tomorrow: 1 + 24, not the 2,000-odd hours since March
    expect(stale).toMatchObject({ count: 25, countIsLowerBound: false, more: true });
    expect(stale.fires[0]).toBe('2026-03-09T00:00:00.000Z');
    expect(stale.fires[1]).toBe('2026-06-07T13:00:00.000Z');
    await t.db.job.deleteMany({ where: { key: 'stale.hourly' } });
  });

  it('counting stops at the budget: the count is then a lower bound, and later jobs are not walked at all', async () => {
    const now = new Date('2026-03-07T12:00:00Z');
    // Every second: 86,400 fires a day each, far over COUNT_BUDGET together.
    for (const key of ['sec.a', 'sec.b']) {
      await t.db.job.create({ data: { key, name: key, scheduleKind: 'cron', cronExpression: '* * * * * *', timezone: 'UTC', status: 'active', nextRunAt: new Date(now.getTime() + 1000) } as never });
    }
    // Soonest first (the two share a next fire, then the order is by id); the jobs of the test before fire later.
    const list = (await getUpcomingFires(t.db, now, { perJob: 10 })).filter((j) => j.jobKey.startsWith('sec.'));
    expect(list).toHaveLength(2);
    expect(list[0]).toMatchObject({ count: COUNT_BUDGET + 1, countIsLowerBound: true, more: true });
    expect(list[1]).toMatchObject({ count: 1, countIsLowerBound: true });
    expect(list[0]!.fires).toHaveLength(10);
  });

  it('getOverview names failed runs by job name and carries both lists', async () => {
    const jobId = await insertJob(t.db, { key: 'named.failure' });
    await t.db.job.update({ where: { id: jobId }, data: { name: 'Nightly export' } });
    const { run } = await triggerRun(t.db, { jobId, trigger: 'manual', triggeredBy: 'test', scheduledFor: T0 }, T0);
    await t.db.run.update({ where: { id: run!.id }, data: { status: 'failed', error: 'boom', finishedAt: at(5000) } });
    const o = await getOverview(t.db, at(60_000));
    expect(o.latestFailures.find((f) => f.id === run!.id)).toMatchObject({ jobKey: 'named.failure', jobName: 'Nightly export', jobPurged: false });
    // purged (runs are kept): named by its key, as text (lib/jobs/purged-job-ids.ts)
    await t.pool.query('DELETE FROM jobs WHERE id = $1', [jobId]);
    expect((await getOverview(t.db, at(60_000))).latestFailures.find((f) => f.id === run!.id)).toMatchObject({ jobName: 'named.failure', jobPurged: true });
    expect(Array.isArray(o.runningNow) && Array.isArray(o.nextFires)).toBe(true);
  });
});
