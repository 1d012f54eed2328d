/**
 * The Prisma client shared by the console and the worker (docs/design.md §2 `lib/db.ts`).
 *
 * Domain functions take `db: Db` so that a caller may pass a
 * transaction client and compose several operations atomically
 * (docs/conventions.md: services accept a client *or* a transaction).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { trackPool } from './metrics/pool-stats.ts';
import { PrismaClient, Prisma } from './generated/prisma/client.ts';
import { preparedStatementName, preparedStatementsEnabled, type SqlPool } from './sql-pool.ts';

export { Prisma };
export type { PrismaClient };
export { preparedSql, type SqlClient, type SqlPool } from './sql-pool.ts';

/** A Prisma client or an interactive-transaction client. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** What the engine's worker-facing operations accept: a Db, or the worker's SqlPool (lib/sql-pool.ts). */
export type EngineDb = Db | SqlPool;

/**
 * Creates a new Prisma client on the `pg` driver adapter.
 * @param url a postgres:// connection string
 * @param poolSize maximum connections in this client's pool (default 10)
 */
export function createPrismaClient(url: string, poolSize = 10): PrismaClient {
  const prepared = preparedStatementsEnabled();
  // Our own pool (the adapter ends it on $disconnect), so its use can be reported as metrics.
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  trackPool(pool);
  return new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true, ...(prepared ? { statementNameGenerator: statementName } : {}) }),
  });
}

/** The pg statement name of a marked statement (preparedSql), else undefined (unnamed). */
function statementName(query: { sql: string }): string {
  // The adapter's type wants a string; undefined leaves pg's unnamed statement, as without a generator.
  return preparedStatementName(query.sql) as string;
}

const globalForPrisma = globalThis as unknown as { tickflowPrisma?: PrismaClient; tickflowPrismaUrl?: string };

/**
 * The process-wide client for `DATABASE_URL` (cached on globalThis so Next's dev
 * reloads do not open a new pool on every edit).
 * @throws Error when DATABASE_URL is not set.
 */
export function getDb(): PrismaClient {
  const url = process.env.DATABASE_URL;
  if (!url) {
    throw new Error('DATABASE_URL is not set: start Tickflow with `npm start`, which provides one, or export it.');
  }
  if (!globalForPrisma.tickflowPrisma || globalForPrisma.tickflowPrismaUrl !== url) {
    globalForPrisma.tickflowPrisma = createPrismaClient(url, Number(process.env.TICKFLOW_DB_POOL ?? 10));
    globalForPrisma.tickflowPrismaUrl = url;
  }
  return globalForPrisma.tickflowPrisma;
}

/**
 * Runs `fn` in one interactive transaction (READ COMMITTED). When `db` is already
 * a transaction client, `fn` joins it instead of opening a nested one.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  if ('$transaction' in db && typeof db.$transaction === 'function') {
    return (db as PrismaClient).$transaction(fn, { timeout: 30_000, maxWait: 10_000 });
  }
  return fn(db as Prisma.TransactionClient);
}
