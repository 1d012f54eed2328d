/**
 * The stats day zone is one database setting (lib/stats/stats-zone.ts): every
 * process books with it whatever its own TICKFLOW_STATS_TZ says, an admin
 * changes it and the daily table is rebuilt in the same transaction, and
 * TICKFLOW_STATS_TZ only seeds it when nothing is stored.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase, createTestDatabase, offerHandlers } from '../helpers/db.ts';
import { SYSTEM_ACTOR, type Actor } from '../../lib/auth/actor.ts';
import { createJob } from '../../lib/jobs/create-job.ts';
import { claimTasks, completeTask, triggerRun } from '../../lib/engine/index.ts';
import { createPrismaClient } from '../../lib/db.ts';
import { rebuildStats } from '../../lib/stats/rebuild-stats.ts';
import { mergeStatsSlots } from '../../lib/stats/merge-slots.ts';
import { getStatsTimeZone, seedStatsTimeZone, setStatsTimeZone } from '../../lib/stats/stats-zone.ts';
import { migrate } from '../../lib/infra/migrate.ts';
import { postgresTimeZone } from '../../lib/schedule/timezone.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PrismaClient } from '../../lib/generated/prisma/client.ts';

const t = useTestDatabase();
const saved = process.env.TICKFLOW_STATS_TZ;
const admin: Actor = { kind: 'user', id: 'u-admin', name: 'admin@example.com', role: 'admin' };
const operator: Actor = { kind: 'user', id: 'u-ops', name: 'ops@example.com', role: 'operator' };
beforeAll(async () => {
  await offerHandlers(t, ['zone.a', 'zone.b', 'zone.c']);
});
afterEach(() => {
  if (saved === undefined) delete process.env.TICKFLOW_STATS_TZ;
  else process.env.TICKFLOW_STATS_TZ = saved;
});

let n = 0;
async function runOnce(db: PrismaClient, handler: string, endAt: string) {
  const start = new Date(Date.parse(endAt) - 1000);
  const job = await createJob(db, { key: `zone.${++n}`, name: 'zone', schedule: { kind: 'manual' }, handler }, SYSTEM_ACTOR, start);
  await triggerRun(db, { jobId: job.id, trigger: 'manual', triggeredBy: 'test', scheduledFor: start }, start);
  const [task] = await claimTasks(db, { nodeId: `zone-node-${n}`, handlers: [handler], group: 'default', labels: {}, limit: 1, leaseSeconds: 3600 }, start);
  expect(task).toBeDefined();
  const r = await completeTask(db, { taskId: task.id, attempt: task.attempt, nodeId: `zone-node-${n}`, outcome: 'success' }, new Date(endAt));
  expect(r.applied).toBe(true);
}
async function datesOf(handler: string): Promise<string[]> {
  const rows = mergeStatsSlots(await t.db.handlerStatsDaily.findMany({ where: { handler } }));
  return rows.map((r) => `${r.statDate.toISOString().slice(0, 10)}:${r.success}`).sort();
}

describe('stats zone setting', () => {
  it('two worker processes with different TICKFLOW_STATS_TZ book one day on one date (the setting, UTC by default)', async () => {
    const other = createPrismaClient(t.url, 2);
    try {
      process.env.TICKFLOW_STATS_TZ = 'Asia/Shanghai'; // ignored by bookings: only the database setting counts
      await runOnce(t.db, 'zone.a', '2026-03-01T23:30:00Z');
      process.env.TICKFLOW_STATS_TZ = 'America/New_York';
      await runOnce(other, 'zone.a', '2026-03-01T23:40:00Z');
    } finally {
      await other.$disconnect();
    }
    expect(await getStatsTimeZone(t.db)).toBe('UTC');
    expect(await datesOf('zone.a')).toEqual(['2026-03-01:2']);
    // stats:rebuild and the stats check read the same setting: no false drift whatever this shell says.
    process.env.TICKFLOW_STATS_TZ = 'Asia/Shanghai';
    const r = await rebuildStats(t.db, { from: '2026-03-01', to: '2026-03-02' });
    expect(r.timeZone).toBe('UTC');
    expect(r.drift).toEqual([]);
  });

  it('an admin changes the zone: the daily table is rebuilt in the same transaction and later bookings use it', async () => {
    await expect(setStatsTimeZone(t.db, { timezone: 'Asia/Shanghai' }, operator)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(setStatsTimeZone(t.db, { timezone: 'Mars/Olympus' }, admin)).rejects.toMatchObject({ code: 'validation', fields: { timezone: expect.any(String) } });
    await expect(setStatsTimeZone(t.db, { timezone: 'UTC', extra: 1 }, admin)).rejects.toMatchObject({ code: 'validation', fields: { extra: 'Unknown field' } });
    expect(await getStatsTimeZone(t.db)).toBe('UTC');

    const r = await setStatsTimeZone(t.db, { timezone: 'Asia/Shanghai' }, admin, new Date('2026-03-03T00:00:00Z'));
    expect(r).toMatchObject({ timezone: 'Asia/Shanghai', previous: 'UTC' });
    expect(r.rebuilt).toMatchObject({ applied: true, timeZone: 'Asia/Shanghai' });
    // 23:30Z and 23:40Z on 03-01 are 07:30 and 07:40 on 03-02 in Shanghai.
    expect(await datesOf('zone.a')).toEqual(['2026-03-02:2']);
    expect(await getStatsTimeZone(t.db)).toBe('Asia/Shanghai');

    await runOnce(t.db, 'zone.b', '2026-03-02T17:00:00Z'); // 01:00 on 03-03 in Shanghai
    expect(await datesOf('zone.b')).toEqual(['2026-03-03:1']);

    // CET is stored as the zone Intl reads it as (PostgreSQL's AT TIME ZONE 'CET' is a fixed +01:00):
    // a success at 22:30Z on 07-01 is booked on 07-02, summer time, the day the dashboards cut
    const cet = await setStatsTimeZone(t.db, { timezone: 'CET' }, admin, new Date('2026-07-03T00:00:00Z'));
    expect(cet).toMatchObject({ timezone: 'Europe/Brussels', previous: 'Asia/Shanghai' });
    expect(await getStatsTimeZone(t.db)).toBe('Europe/Brussels');
    await runOnce(t.db, 'zone.c', '2026-07-01T22:30:00Z');
    expect(await datesOf('zone.c')).toEqual(['2026-07-02:1']);
    await setStatsTimeZone(t.db, { timezone: 'Asia/Shanghai' }, admin, new Date('2026-07-03T00:00:00Z'));
    const check = await rebuildStats(t.db, { from: '2026-03-01', to: '2026-03-03' });
    expect(check.drift).toEqual([]);

    // Saving the same zone writes nothing and rebuilds nothing.
    expect((await setStatsTimeZone(t.db, { timezone: 'Asia/Shanghai' }, admin)).rebuilt).toBeNull();
  });

  it('TICKFLOW_STATS_TZ seeds the setting only when none is stored (start-up migration and seedStatsTimeZone)', async () => {
    const fresh = await createTestDatabase();
    try {
      await offerHandlers(fresh, []);
      process.env.TICKFLOW_STATS_TZ = 'Europe/Paris';
      await migrate(fresh.url); // what npm start runs
      expect(await getStatsTimeZone(fresh.db)).toBe('Europe/Paris');
      process.env.TICKFLOW_STATS_TZ = 'Asia/Tokyo';
      await migrate(fresh.url);
      expect(await seedStatsTimeZone(fresh.db, 'Asia/Tokyo')).toBeNull();
      expect(await getStatsTimeZone(fresh.db)).toBe('Europe/Paris');
    } finally {
      await fresh.close();
    }
    expect(await seedStatsTimeZone(t.db, 'Not/AZone')).toBeNull();
  });

  it('a stats zone stored under an abbreviation PostgreSQL reads as a fixed offset is seeded, and upgraded, under its canonical name', async () => {
    const fresh = await createTestDatabase();
    try {
      await offerHandlers(fresh, []);
      expect(await seedStatsTimeZone(fresh.db, 'EET')).toBe('Europe/Athens');
      expect(await getStatsTimeZone(fresh.db)).toBe('Europe/Athens');
      // a setting stored before (migration 20261214000000_stats_zone_canonical_name)
      const upgrade = readFileSync(path.resolve(import.meta.dirname, '../../prisma/migrations/20261214000000_stats_zone_canonical_name/migration.sql'), 'utf8');
      for (const [stored, canonical] of [['CET', 'Europe/Brussels'], ['MET', 'Europe/Brussels'], ['EET', 'Europe/Athens'], ['WET', 'Europe/Lisbon'], ['Asia/Tokyo', 'Asia/Tokyo']] as const) {
        await fresh.pool.query(`UPDATE settings SET value = to_jsonb($1::text) WHERE key = 'stats.timezone'`, [stored]);
        await fresh.pool.query(upgrade);
        expect(await getStatsTimeZone(fresh.db)).toBe(canonical);
        // the migration's names are the ones the application stores
        expect(postgresTimeZone(stored)).toBe(canonical);
      }
    } finally {
      await fresh.close();
    }
  });
});
