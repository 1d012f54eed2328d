/**
 * Day bucketing in the stats time zone (the `stats.timezone` setting, default UTC): a task finishing at
 * 2026-03-01T23:30Z counts on 2026-03-01 in UTC and on 2026-03-02 in Asia/Shanghai (UTC+8);
 * the rebuild uses the same boundary; lateness and the read model's averages.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, offerHandlers } from '../helpers/db.ts';
import { SYSTEM_ACTOR } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { getDailyStats } from '../../lib/stats/get-daily-stats.ts';
import { addDays, dayStartSql, statDateOf } from '../../lib/stats/dates.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';

const t = useTestDatabase();
beforeAll(async () => {
  await offerHandlers(t, ['tz.rebuild', 'tz.shanghai', 'tz.utc', 'tz.havana']);
});
afterEach(async () => {
  await statsZone(null);
});

/** Sets the stats zone row directly (no rebuild): what these tests look at is how bookings read it. */
async function statsZone(tz: string | null) {
  if (tz === null) await t.db.$executeRawUnsafe(`DELETE FROM settings WHERE key = 'stats.timezone'`);
  else await t.db.$executeRawUnsafe(`INSERT INTO settings (key, value) VALUES ('stats.timezone', to_jsonb($1::text)) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, tz);
}

let n = 0;
/** One run of a one-step job: scheduled at `scheduledFor`, claimed at `startAt`, finished at `endAt`. */
async function runOnce(handler: string, scheduledFor: string, startAt: string, endAt: string, outcome: 'success' | 'failed' | 'timeout' = 'success') {
  const job = await createJob(t.db, { key: `tz.${++n}`, name: 'tz', schedule: { kind: 'manual' }, handler }, SYSTEM_ACTOR, new Date(scheduledFor));
  await triggerRun(t.db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: new Date(scheduledFor) }, new Date(scheduledFor));
  const [task] = await claimTasks(t.db, { nodeId: 'tz-node', handlers: [handler], group: 'default', labels: {}, limit: 1, leaseSeconds: 3600 }, new Date(startAt));
  expect(task).toBeDefined();
  const r = await completeTask(t.db, { taskId: task.id, attempt: task.attempt, nodeId: 'tz-node', outcome }, new Date(endAt));
  expect(r.applied).toBe(true);
}

describe('stats day boundaries', () => {
  it('statDateOf follows the zone', () => {
    const i = new Date('2026-03-01T23:30:00Z');
    expect(statDateOf(i, 'UTC')).toBe('2026-03-01');
    expect(statDateOf(i, 'Asia/Shanghai')).toBe('2026-03-02');
    expect(statDateOf(new Date('2026-03-08T04:30:00Z'), 'America/New_York')).toBe('2026-03-07'); // 23:30 EST
    expect(statDateOf(new Date('2026-03-08T07:30:00Z'), 'America/New_York')).toBe('2026-03-08'); // 03:30 EDT, after the gap
  });

  it('a task finishing 2026-03-01T23:30Z counts on 2026-03-02 in Asia/Shanghai, on 2026-03-01 in UTC', async () => {
    await statsZone('Asia/Shanghai');
    await runOnce('tz.shanghai', '2026-03-01T23:00:00Z', '2026-03-01T23:00:02Z', '2026-03-01T23:30:00Z');
    await statsZone(null);
    await runOnce('tz.utc', '2026-03-01T23:00:00Z', '2026-03-01T23:00:02Z', '2026-03-01T23:30:00Z');

    const rows = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler: { in: ['tz.shanghai', 'tz.utc'] } }, orderBy: { handler: 'asc' } }));
    expect(rows.map((r) => [r.handler, r.statDate.toISOString().slice(0, 10), r.success])).toEqual([
      ['tz.shanghai', '2026-03-02', 1],
      ['tz.utc', '2026-03-01', 1],
    ]);
    // duration 29 min 58 s -> the open-ended bucket (>= 300 s); lateness 2 s on the first attempt
    const sh = rows[0];
    expect(Number(sh.totalDurationMs)).toBe(1_798_000);
    expect(sh.maxDurationMs).toBe(1_798_000);
    expect(sh.durationBuckets.at(-1)).toBe(1);
    expect(Number(sh.totalLatenessMs)).toBe(2000);
    expect(sh.latenessCount).toBe(1);
  });

  it('the rebuild buckets days in the same zone', async () => {
    await statsZone('Asia/Shanghai');
    await runOnce('tz.rebuild', '2026-03-01T23:59:00Z', '2026-03-01T23:59:00Z', '2026-03-01T23:59:00.120Z', 'failed');
    const r = await rebuildStats(t.db, { from: '2026-03-02', to: '2026-03-02' });
    expect(r.timeZone).toBe('Asia/Shanghai');
    // tz.shanghai and tz.rebuild agree; only tz.utc (bucketed while the zone was UTC) moves to 03-02 here
    expect(r.drift.map((d) => [d.handler, d.fields, d.stored])).toEqual([['tz.utc', ['row'], null]]);
    expect(r.computedRows).toBe(3);
    // asking the UTC question of Shanghai-bucketed rows shows the difference (wrong-zone rebuilds are loud)
    const wrong = await rebuildStats(t.db, { from: '2026-03-01', to: '2026-03-02', timeZone: 'UTC' });
    expect(wrong.drift.map((d) => d.handler).sort()).toEqual(['tz.rebuild', 'tz.rebuild', 'tz.shanghai', 'tz.shanghai']);

    const daily = await getDailyStats(t.db, { from: '2026-03-02', to: '2026-03-02', handler: 'tz.rebuild' });
    expect(daily.days).toEqual([
      expect.objectContaining({ date: '2026-03-02', handler: 'tz.rebuild', success: 0, failure: 1, timeout: 0, deadLetter: 1, avgDurationMs: 120, maxDurationMs: 120, avgLatenessMs: 0 }),
    ]);
    // 120 ms is in bucket [100, 250): the single sample's p50 interpolates to the middle, clamped to max
    expect(daily.days[0].p50Ms).toBe(120);
  });
});

describe('where a day starts in a zone whose clock changes at midnight', () => {
  /** The first instant whose date in `tz` is `day` or later, by Intl (statDateOf), bisected to the second. */
  function dayStartByIntl(day: string, tz: string): number {
    let lo = Date.parse(`${day}T00:00:00Z`) - 2 * 86_400_000;
    let hi = lo + 4 * 86_400_000;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (statDateOf(new Date(mid), tz) >= day) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  it('dayStartSql is the first instant the engine books on that day, where midnight repeats or is skipped too', async () => {
    const cases: [string, string][] = [
      ['America/Havana', '2024-11-03'], // 01:00 -> 00:00: midnight happens twice
      ['America/Havana', '2024-11-04'],
      ['America/Havana', '2025-03-09'], // 00:00 -> 01:00: midnight is skipped
      ['America/Santiago', '2026-09-06'], // 00:00 -> 01:00
      ['America/Santiago', '2026-04-05'], // 24:00 -> 23:00 the day before
      ['America/Asuncion', '2024-10-06'],
      ['America/New_York', '2026-11-01'],
      ['America/New_York', '2026-11-02'],
      ['America/New_York', '2026-03-08'],
      ['Australia/Lord_Howe', '2026-04-05'],
      ['Australia/Lord_Howe', '2026-10-04'],
      ['Pacific/Chatham', '2026-04-05'],
      ['Asia/Kolkata', '2026-06-01'],
      ['Pacific/Apia', '2011-12-30'], // skipped whole: it starts where the 31st does
    ];
    for (const [tz, day] of cases) {
      const { rows } = await t.pool.query<{ start: Date; next: Date }>(
        `SELECT ${dayStartSql('$1::date', '$2::text')} AS start, ${dayStartSql('$1::date + 1', '$2::text')} AS next`,
        [day, tz],
      );
      expect([tz, day, rows[0]!.start.toISOString()]).toEqual([tz, day, new Date(dayStartByIntl(day, tz)).toISOString()]);
      expect([tz, day, rows[0]!.next.toISOString()]).toEqual([tz, day, new Date(dayStartByIntl(addDays(day, 1), tz)).toISOString()]);
    }
  });

  it('the rebuild and its check keep the first hour of a Havana day whose midnight repeats', async () => {
    await statsZone('America/Havana');
    // 2024-11-03 04:30Z is 00:30 in the first pass of Havana's repeated midnight hour: booked on 11-03
    await runOnce('tz.havana', '2024-11-03T04:29:00Z', '2024-11-03T04:29:00Z', '2024-11-03T04:30:00Z');
    const stored = await t.db.handlerStatsDaily.findMany({ where: { handler: 'tz.havana' } });
    expect(stored.map((r) => r.statDate.toISOString().slice(0, 10))).toEqual(['2024-11-03']);
    // a check of that day, or of the day before, finds what the engine booked (no false drift), and a rebuild keeps it
    expect((await rebuildStats(t.db, { from: '2024-11-03', to: '2024-11-03' })).drift).toEqual([]);
    expect((await rebuildStats(t.db, { from: '2024-11-02', to: '2024-11-02' })).drift).toEqual([]);
    await rebuildStats(t.db, { from: '2024-11-03', to: '2024-11-04', apply: true });
    const after = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler: 'tz.havana' } }));
    expect(after.map((r) => [r.statDate.toISOString().slice(0, 10), r.success])).toEqual([['2024-11-03', 1]]);
  });
});
