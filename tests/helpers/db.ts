/**
 * Per-test-file databases cloned from the migrated template that
 * tests/global-setup.ts prepared.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { withDatabase } from '../../lib/infra/migrate.ts';

export interface TestDatabase {
  url: string;
  name: string;
  db: PrismaClient;
  /** a raw pg pool on the same database, for SQL the test wants to run itself */
  pool: pg.Pool;
  close(): Promise<void>;
}

/** Clones a fresh database from the template; call in beforeAll, close in afterAll. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = inject('pgAdminUrl');
  const name = `${inject('pgPrefix')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${inject('pgTemplate')}"`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const db = createPrismaClient(url, 10);
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  // An idle client whose connection the server ended is dropped by the pool, which then emits the
  // error: with no listener, an uncaught exception that fails the whole file (pg's Pool docs).
  // A query in flight still rejects on its own.
  pool.on('error', () => undefined);
  return {
    url,
    name,
    db,
    pool,
    async close() {
      await db.$disconnect();
      await pool.end();
      const a = new pg.Client({ connectionString: adminUrl });
      await a.connect();
      // pg's Pool.end() resolves before its sockets have closed. Terminating them now (DROP ...
      // FORCE) makes a closing client receive 57P01 after its pool stopped listening for errors:
      // an uncaught exception that fails the whole vitest run. So wait for this process's
      // connections to go first (a few ms), and force only what is left after 5 s.
      for (let i = 0; i < 100; i++) {
        const { rows } = await a.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1`, [name]);
        if (rows[0]!.n === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
      await a.end();
    },
  };
}

/**
 * Registers an offline worker node that reports `handlers`, so jobs naming
 * those custom handlers pass the known-handler check on save (lib/jobs
 * known-handlers.ts) without a live worker taking part in claims.
 */
export async function offerHandlers(t: TestDatabase, handlers: string[]): Promise<void> {
  await t.pool.query(
    `INSERT INTO worker_nodes (node_id, name, host, pid, handlers, status)
     VALUES ('test-handlers', 'test handlers', 'test', 0, $1, 'offline')
     ON CONFLICT (node_id) DO UPDATE SET handlers = (SELECT array_agg(DISTINCT h) FROM unnest(worker_nodes.handlers || EXCLUDED.handlers) h)`,
    [handlers],
  );
}

/**
 * The usual lifecycle of a test file's database: created in beforeAll, closed in afterAll
 * (then `afterClose`, e.g. to drop cluster-wide roles). The returned object reads through to
 * the database once beforeAll has run, so tests use `t.db`, `t.pool`, `t.url` as before.
 */
export function useTestDatabase(opts: { afterClose?: (t: TestDatabase) => Promise<void> } = {}): TestDatabase {
  let current: TestDatabase | undefined;
  const get = (): TestDatabase => {
    if (!current) throw new Error('the test database is used before beforeAll created it');
    return current;
  };
  beforeAll(async () => {
    current = await createTestDatabase();
  });
  afterAll(async () => {
    if (!current) return;
    await current.close();
    await opts.afterClose?.(current);
  });
  return {
    get url() { return get().url; },
    get name() { return get().name; },
    get db() { return get().db; },
    get pool() { return get().pool; },
    close: () => get().close(),
  };
}
