/**
 * The Prisma client shared by the console and the worker (docs/design.md §2 `lib/db.ts`).
 *
 * Domain functions take `db: Db` so that a caller may pass a
 * transaction client and compose several operations atomically
 * (docs/conventions.md: services accept a client *or* a transaction).
 */
import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { trackPool } from './metrics/pool-stats.ts';
import { PrismaClient, Prisma } from './generated/prisma/client.ts';

export { Prisma };
export type { PrismaClient };

/** A Prisma client or an interactive-transaction client. */
export type Db = PrismaClient | Prisma.TransactionClient;

/**
 * Creates a new Prisma client on the `pg` driver adapter.
 * @param url a postgres:// connection string
 * @param poolSize maximum connections in this client's pool (default 10)
 */
export function createPrismaClient(url: string, poolSize = 10): PrismaClient {
  const prepared = !/^(0|false|off|no)$/i.test(process.env.TICKFLOW_PREPARED_STATEMENTS ?? '');
  // Our own pool (the adapter ends it on $disconnect), so its use can be reported as metrics.
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  trackPool(pool);
  return new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true, ...(prepared ? { statementNameGenerator: statementName } : {}) }),
  });
}

const PREPARED_PREFIX = '/* tickflow:';
const LABEL_RE = /^[a-z0-9-]{1,32}$/;

/**
 * Marks `sql` (fixed text, not built from data) to run as a named prepared
 * statement: PostgreSQL then parses it once per connection and, after five
 * executions, may reuse a generic plan instead of planning it again (see the
 * PostgreSQL docs, "PREPARE", plan_cache_mode). The engine's hot statements
 * are large CTEs whose planning cost more than their execution (bench/
 * throughput.ts; measured 2x the claim+complete rate). Only marked statements
 * are named: Prisma's own queries vary their text (IN lists) and would fill
 * every connection with single-use statements. The label also names the
 * statement in pg_stat_activity and the server log.
 * Set TICKFLOW_PREPARED_STATEMENTS=0 behind a transaction-mode pooler
 * (PgBouncer before 1.21) that cannot keep prepared statements.
 * @param label lower-case letters, digits and dashes, at most 32 characters
 * @throws Error on a bad label (a programming error)
 */
export function preparedSql(label: string, sql: string): string {
  if (!LABEL_RE.test(label)) throw new Error(`preparedSql: bad label ${JSON.stringify(label)}`);
  return `${PREPARED_PREFIX}${label} */ ${sql}`;
}

const statementNames = new Map<string, string>();

/** The pg statement name of a marked statement (label + hash of its whole text), else undefined (unnamed). */
function statementName(query: { sql: string }): string {
  const { sql } = query;
  // The adapter's type wants a string; undefined leaves pg's unnamed statement, as without a generator.
  if (!sql.startsWith(PREPARED_PREFIX)) return undefined as unknown as string;
  let name = statementNames.get(sql);
  if (!name) {
    const label = sql.slice(PREPARED_PREFIX.length, sql.indexOf(' */'));
    name = `tf_${label}_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    // Marked texts are fixed, so this stays small; the cap only guards against a misuse.
    if (statementNames.size < 500) statementNames.set(sql, name);
  }
  return name;
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
