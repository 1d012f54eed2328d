/**
 * A database that stops answering without closing its connections (lib/db-timeouts.ts): a hung
 * server, a partition that drops packets. A relay in front of this file's database freezes
 * (tests/helpers/database-relay.ts): connections stay open, nothing is forwarded. A statement then
 * fails within the query timeout as "database unavailable" instead of waiting for good, its
 * connection is closed rather than handed to the next caller, and the pool works again once the
 * database answers. A REST call meeting it answers 503 database_unavailable with Retry-After.
 * Short timeouts are given to the clients here, so nothing sleeps long.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPrismaClient, directSqlPool, type PrismaClient } from '../../lib/db.ts';
import { createSqlPool } from '../../lib/sql-pool.ts';
import { QUERY_TIMEOUT_GRACE_MS } from '../../lib/db-timeouts.ts';
import { isDatabaseUnavailable } from '../../lib/infra/database-unavailable.ts';
import { startDatabaseRelay, type DatabaseRelay } from '../helpers/database-relay.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { call, userToken } from '../helpers/rest.ts';

const QUERY_TIMEOUT_MS = 1_000;
/** the longest a statement may take to fail: the client's bound (timeout + grace), plus room for a loaded machine */
const FAILS_WITHIN_MS = QUERY_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS + 2_000;

let t: TestDatabase;
let relay: DatabaseRelay;
beforeAll(async () => {
  t = await createTestDatabase();
  relay = await startDatabaseRelay(t.url);
  await t.pool.query(`CREATE TABLE timeout_probe (id int PRIMARY KEY)`);
});
afterEach(() => relay.thaw());
afterAll(async () => {
  relay.thaw();
  await relay.close();
  await t.close();
});

/** Runs `fn`, expecting it to fail: its error and how long it took (ms). */
async function failure(fn: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await fn().then(
    () => new Error('expected a failure, got an answer'),
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

/** This file's database's sessions in `state` (seen directly, not through the relay). */
async function sessions(state: string): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND state = $2 AND pid <> pg_backend_pid()`, [t.name, state]);
  return rows[0]!.n;
}

describe('a frozen database', () => {
  let db: PrismaClient;
  beforeAll(() => {
    db = createPrismaClient(relay.url, 1, { queryTimeoutMs: QUERY_TIMEOUT_MS, connectTimeoutMs: QUERY_TIMEOUT_MS });
  });
  afterAll(() => db.$disconnect());

  it('fails a Prisma statement within the query timeout as "database unavailable", and the pool recovers when it answers again', async () => {
    expect(await db.$queryRawUnsafe(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    const pool = directSqlPool(db)!.pool;
    expect(pool.totalCount).toBe(1);

    relay.freeze();
    const { error, ms } = await failure(() => db.$queryRawUnsafe(`SELECT 'late' AS answer`));
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(String((error as Error).message)).toContain('Query read timeout');
    expect(ms).toBeGreaterThanOrEqual(QUERY_TIMEOUT_MS);
    expect(ms).toBeLessThan(FAILS_WITHIN_MS);
    // the connection that met the timeout was closed, not put back in the pool
    await expect.poll(() => pool.totalCount).toBe(0);

    // a new connection meets the connect timeout, also an outage
    const connect = await failure(() => db.$queryRawUnsafe(`SELECT 1`));
    expect(isDatabaseUnavailable(connect.error)).toBe(true);
    expect(connect.ms).toBeLessThan(FAILS_WITHIN_MS);

    relay.thaw();
    expect(await db.$queryRawUnsafe(`SELECT 'fresh' AS answer`)).toEqual([{ answer: 'fresh' }]);
  });

  it('leaves no transaction behind: the connection of a transaction that met the timeout is never reused', async () => {
    const { error } = await failure(() =>
      db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe(`INSERT INTO timeout_probe (id) VALUES (1)`);
        relay.freeze();
        await tx.$executeRawUnsafe(`INSERT INTO timeout_probe (id) VALUES (2)`);
      }),
    );
    expect(isDatabaseUnavailable(error)).toBe(true);
    relay.thaw();
    // with one connection in the pool, a reused one would still be inside the failed transaction
    // (its ROLLBACK never sent): this statement would see row 1, and a COMMIT would keep it
    expect(await db.$transaction((tx) => tx.$queryRawUnsafe(`SELECT count(*)::int AS n FROM timeout_probe`))).toEqual([{ n: 0 }]);
    await expect.poll(() => sessions('idle in transaction')).toBe(0);
    expect((await t.pool.query(`SELECT count(*)::int AS n FROM timeout_probe`)).rows).toEqual([{ n: 0 }]);
  });

  it('fails a statement of the worker\'s hot-path pool the same way, and in its transactions', async () => {
    const hot = createSqlPool(relay.url, 1, { queryTimeoutMs: QUERY_TIMEOUT_MS });
    try {
      expect(await hot.$queryRawUnsafe(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
      relay.freeze();
      const single = await failure(() => hot.$queryRawUnsafe(`SELECT 1`));
      expect(isDatabaseUnavailable(single.error)).toBe(true);
      expect(single.ms).toBeLessThan(FAILS_WITHIN_MS);
      relay.thaw();
      expect(await hot.$queryRawUnsafe(`SELECT 2 AS two`)).toEqual([{ two: 2 }]);

      const inTx = await failure(() =>
        hot.$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`INSERT INTO timeout_probe (id) VALUES (3)`);
          relay.freeze();
          await tx.$executeRawUnsafe(`INSERT INTO timeout_probe (id) VALUES (4)`);
        }),
      );
      expect(isDatabaseUnavailable(inTx.error)).toBe(true);
      expect(inTx.ms).toBeLessThan(2 * FAILS_WITHIN_MS); // the statement, then its ROLLBACK on a closed connection
      relay.thaw();
      expect(await hot.$transaction((tx) => tx.$queryRawUnsafe(`SELECT count(*)::int AS n FROM timeout_probe`))).toEqual([{ n: 0 }]);
    } finally {
      relay.thaw();
      await hot.$disconnect();
    }
  });
});

describe('a slow statement on a live server', () => {
  it('is stopped by the server at the query timeout (statement_timeout) before the client gives up, and counts as unavailable', async () => {
    const db = createPrismaClient(t.url, 1, { queryTimeoutMs: QUERY_TIMEOUT_MS });
    try {
      expect(await db.$queryRawUnsafe(`SELECT current_setting('statement_timeout') AS setting`)).toEqual([{ setting: '1s' }]);
      const { error, ms } = await failure(() => db.$queryRawUnsafe(`SELECT pg_sleep(5)`));
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(JSON.stringify(error, Object.getOwnPropertyNames(error))).toMatch(/57014|statement timeout/);
      expect(ms).toBeLessThan(QUERY_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS);
      // a statement that asks for longer in its own transaction (SET LOCAL) still gets it, up to the client's bound
      expect(
        await db.$transaction(async (tx) => {
          await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = 1500`);
          return tx.$queryRawUnsafe(`SELECT pg_sleep(1.2)::text AS slept`);
        }),
      ).toEqual([{ slept: '' }]);
    } finally {
      await db.$disconnect();
    }
  });
});

describe('a REST call', () => {
  const saved = { url: process.env.DATABASE_URL, timeout: process.env.TICKFLOW_DB_QUERY_TIMEOUT_MS };
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
    for (const [k, v] of [['DATABASE_URL', saved.url], ['TICKFLOW_DB_QUERY_TIMEOUT_MS', saved.timeout]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('answers 503 database_unavailable with Retry-After when its statements meet a frozen database after the probe passed', async () => {
    const token = await userToken(t.db, 'viewer', 'timeout-viewer');
    process.env.DATABASE_URL = relay.url;
    process.env.TICKFLOW_DB_QUERY_TIMEOUT_MS = String(QUERY_TIMEOUT_MS);
    const { GET } = await import('../../app/api/v1/jobs/route.ts');
    expect((await call(GET, 'GET', '/api/v1/jobs', { token })).status).toBe(200);

    // the relay lets the console's probe through (lib/infra/database-probe.ts): the call gets past it
    relay.freeze();
    const started = Date.now();
    const res = await call(GET, 'GET', '/api/v1/jobs', { token });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.json.error).toMatchObject({ code: 'database_unavailable', message: expect.stringMatching(/database is not reachable/) });
    expect(Date.now() - started).toBeLessThan(2 * FAILS_WITHIN_MS);

    relay.thaw();
    // the next calls answer 503 at once until a probe finds the database again (markDatabaseUnreachable), then 200
    await expect.poll(async () => (await call(GET, 'GET', '/api/v1/jobs', { token })).status, { timeout: 10_000 }).toBe(200);
  });

  it('GET /health answers its 503 in the shape of its 200 (monitors read `.database`), with Retry-After, whether the probe or its own check finds the database away', async () => {
    process.env.DATABASE_URL = relay.url;
    process.env.TICKFLOW_DB_QUERY_TIMEOUT_MS = String(QUERY_TIMEOUT_MS);
    const health = await import('../../app/api/v1/health/route.ts');
    await expect.poll(async () => (await call(health.GET, 'GET', '/api/v1/health')).status, { timeout: 10_000 }).toBe(200);
    const down = { status: 'error', database: 'error', workers: 0 };
    // frozen after the probe passed: the route's own SELECT 1 gives up
    relay.freeze();
    try {
      const res = await call(health.GET, 'GET', '/api/v1/health');
      expect({ status: res.status, retryAfter: res.headers.get('retry-after'), body: res.json }).toEqual({ status: 503, retryAfter: '5', body: down });
    } finally {
      relay.thaw();
    }
    // nothing listens there: the probe answers first, before the route runs
    process.env.DATABASE_URL = 'postgresql://nobody@127.0.0.1:1/none';
    const res = await call(health.GET, 'GET', '/api/v1/health');
    expect({ status: res.status, retryAfter: res.headers.get('retry-after'), body: res.json }).toEqual({ status: 503, retryAfter: '5', body: down });
  });
});
