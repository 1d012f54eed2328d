/**
 * Instants are right whatever the database server's time zone (lib/sql-pool.ts utcSession):
 * Prisma's driver adapter sends a Date as a zone-less wall-clock time in UTC, which PostgreSQL
 * reads in the session's TimeZone. Here the test database's sessions default to New York
 * (UTC−5 on 2026-03-01): every pool Tickflow opens must still run in UTC, and an instant
 * written through Prisma must be the one the engine's SQL (node-postgres) sees.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { createSqlPool, HOT_PATH_SETTINGS, type SqlPool } from '../../lib/sql-pool.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { T0, insertJob } from './engine-fixtures.ts';

let t: TestDatabase;
let db: PrismaClient;
let hot: SqlPool;
beforeAll(async () => {
  t = await createTestDatabase();
  await t.pool.query(`ALTER DATABASE "${t.name}" SET timezone TO 'America/New_York'`);
  // clients opened after the ALTER: their sessions start in New York
  db = createPrismaClient(t.url, 2);
  hot = createSqlPool(t.url, 1, { settings: HOT_PATH_SETTINGS });
});
afterAll(async () => {
  await db.$disconnect();
  await hot.$disconnect();
  await t.close();
});

describe('sessions run in UTC whatever the server\'s zone', () => {
  it('a Date parameter means its instant on the Prisma client and on the hot-path pool', async () => {
    const probe = `SELECT current_setting('TimeZone') AS zone, $1::timestamptz = '2026-03-01T10:00:00Z'::timestamptz AS same`;
    expect(await db.$queryRawUnsafe(probe, T0)).toEqual([{ zone: 'UTC', same: true }]);
    expect(await hot.$queryRawUnsafe(probe, T0)).toEqual([{ zone: 'UTC', same: true }]);
    // inside a Prisma transaction too (the engine's replay path runs there)
    expect(await db.$transaction((tx) => tx.$queryRawUnsafe(probe, T0))).toEqual([{ zone: 'UTC', same: true }]);
  });

  it('an instant written through Prisma is the same instant for the engine\'s own SQL, and reads back unchanged', async () => {
    const jobId = await insertJob(db, { key: 'tz-next-fire' });
    await db.job.update({ where: { id: jobId }, data: { nextRunAt: T0 } });
    // node-postgres (the hot path's driver) sends the instant with its offset: compared in SQL
    const { rows } = await t.pool.query(`SELECT next_run_at = $2::timestamptz AS same, next_run_at AS "nextRunAt" FROM jobs WHERE id = $1`, [jobId, T0]);
    expect(rows).toEqual([{ same: true, nextRunAt: T0 }]);
    expect((await db.job.findUniqueOrThrow({ where: { id: jobId }, select: { nextRunAt: true } })).nextRunAt).toEqual(T0);
  });
});
