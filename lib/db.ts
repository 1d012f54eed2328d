/**
 * The Prisma client shared by the console and the worker (docs/design.md §2 `lib/db.ts`).
 *
 * Domain functions take `db: Db` so that a caller may pass a
 * transaction client and compose several operations atomically
 * (docs/conventions.md: services accept a client *or* a transaction).
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { boundedPoolOptions, dbQueryTimeoutFromEnv } from './db-timeouts.ts';
import { trackPool } from './metrics/pool-stats.ts';
import { pgErrorCode } from './pg-error-code.ts';
import { MAX_ENGINE_ATTEMPTS, REPLAYABLE_SQLSTATES, replayDelayMs } from './engine/lock-order.ts';
import { PrismaClient, Prisma } from './generated/prisma/client.ts';
import { preparedStatementName, preparedStatementsEnabled, sqlPoolOver, utcSession, type SqlPool } from './sql-pool.ts';

export { Prisma };
export type { PrismaClient };
export { preparedSql, type SqlClient, type SqlPool } from './sql-pool.ts';

/** A Prisma client or an interactive-transaction client. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** What the engine's worker-facing operations accept: a Db, or the worker's SqlPool (lib/sql-pool.ts). */
export type EngineDb = Db | SqlPool;

/**
 * Creates a new Prisma client on the `pg` driver adapter. Its connections are bounded
 * (lib/db-timeouts.ts): a connect timeout, and a query timeout after which the statement fails
 * and its connection is closed, an error that counts as the database being unavailable.
 * @param url a postgres:// connection string
 * @param poolSize maximum connections in this client's pool (default 10)
 * @param opts.queryTimeoutMs the query timeout in ms, 0 for none (default: TICKFLOW_DB_QUERY_TIMEOUT_MS)
 * @param opts.connectTimeoutMs the connect timeout in ms (default DB_CONNECT_TIMEOUT_MS; tests)
 * @throws Error when TICKFLOW_DB_QUERY_TIMEOUT_MS is read and is not a valid value
 */
export function createPrismaClient(url: string, poolSize = 10, opts: { queryTimeoutMs?: number; connectTimeoutMs?: number } = {}): PrismaClient {
  const prepared = preparedStatementsEnabled();
  const bounds = boundedPoolOptions(opts.queryTimeoutMs ?? dbQueryTimeoutFromEnv(), { serverSide: prepared, connectTimeoutMs: opts.connectTimeoutMs });
  // Our own pool (the adapter ends it on $disconnect), so its use can be reported as metrics.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, onConnect: utcSession, ...bounds });
  // An idle connection's error (terminated, server restart) must not crash the process: Prisma's
  // adapter listens only once its engine connected, which a client used only through
  // directSqlPool never does. The next statement reports the problem.
  pool.on('error', () => undefined);
  trackPool(pool);
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true, ...(prepared ? { statementNameGenerator: statementName } : {}) }),
  });
  drivers.set(client, sqlPoolOver(pool, { settings: null, ownsPool: false }));
  // Prisma ends the pool on $disconnect only when it opened its engine; a client whose
  // statements all went through directSqlPool never did, and would leave its connections open.
  const disconnect = client.$disconnect.bind(client);
  Object.assign(client, {
    async $disconnect() {
      await disconnect();
      if (!(pool as pg.Pool & { ended?: boolean }).ended) await pool.end();
    },
  });
  return client;
}

/** The direct pool of each client made by createPrismaClient (its own node-postgres pool). */
const drivers = new WeakMap<object, SqlPool>();

/**
 * The same connections as `db` without Prisma's query layer, for the engine's own statements
 * when that layer costs more than they do (a trigger's insert, a bulk trigger's transaction:
 * lib/engine/idle-trigger-batch.ts, trigger-runs.ts). Parameters and rows are node-postgres's
 * own (its type parsers, not Prisma's). Its `$transaction` opens a transaction of its own; the
 * engine's functions accept it like the worker's SqlPool (lib/engine/pg.ts withEngineTransaction).
 * @returns the direct pool of a client made by createPrismaClient; undefined for any other
 *   client (a transaction client — whose transaction must be joined —, a client made
 *   elsewhere): use `db` itself then
 */
export function directSqlPool(db: unknown): SqlPool | undefined {
  return typeof db === 'object' && db !== null ? drivers.get(db) : undefined;
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
 * @throws Error when DATABASE_URL is not set, or TICKFLOW_DB_QUERY_TIMEOUT_MS is not a valid value.
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
 * How long an interactive transaction of inTransaction may last (ms) before Prisma rolls it
 * back. Every operation's documented maximum stays well within it (docs/operations.md
 * "Limits and long transactions", measured by bench/transactions.ts).
 */
export const TRANSACTION_TIMEOUT_MS = 30_000;

/**
 * The timeout of the transactions whose work grows with their input up to hundreds of rows
 * done one by one: a bulk action on 500 jobs (lib/jobs/bulk-jobs.ts), a change carrying a graph
 * of 500 steps and 2,000 edges (update, DAG save, rollback). Their maximum takes a few seconds
 * (bench/transactions.ts); this leaves room for a machine several times slower.
 */
export const LONG_TRANSACTION_TIMEOUT_MS = 120_000;

/**
 * The longest timeout of any operation's transaction: a stats rebuild, and a stats zone change,
 * which rebuilds the retention window (minutes on a large installation: lib/stats). It is that
 * of the Idempotency-Key transaction (lib/api/idempotency.ts), which every operation sent with a
 * key joins, since a transaction joined keeps its owner's timeout.
 */
export const LONGEST_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

/**
 * Runs `fn` in one interactive transaction (READ COMMITTED). When `db` is already
 * a transaction client, `fn` joins it instead of opening a nested one.
 *
 * A transaction this call owns is replayed from the start after a rollback for a lock
 * conflict (40P01 deadlock, 40001 serialization failure, 55P03 lock not available;
 * lib/engine/lock-order.ts REPLAYABLE_SQLSTATES), at most MAX_ENGINE_ATTEMPTS times in
 * all, with a jittered pause: an operator's action (a bulk pause, an edit that cancels
 * runs created ahead) whose locks crossed a worker's is then carried out, not answered
 * with an error. A rolled-back `fn` left nothing behind, and every domain write checks
 * what it reads in its own transaction (versions, statuses), so running it again is
 * safe; `fn` must not act outside the database. `replay: false` for a caller that
 * replays itself (lib/engine/pg.ts withEngineTransaction).
 *
 * The transaction is rolled back when it lasts longer than `timeoutMs` (default
 * TRANSACTION_TIMEOUT_MS): Prisma's P2028, which the doors answer 503 `transaction_timeout`
 * (lib/infra/transaction-timeout.ts). A transaction `fn` joins keeps its owner's timeout.
 */
export async function inTransaction<T>(db: Db, fn: (tx: Prisma.TransactionClient) => Promise<T>, opts: { replay?: boolean; timeoutMs?: number } = {}): Promise<T> {
  if ('$transaction' in db && typeof db.$transaction === 'function') {
    for (let attempt = 1; ; attempt++) {
      try {
        return await (db as PrismaClient).$transaction(fn, { timeout: opts.timeoutMs ?? TRANSACTION_TIMEOUT_MS, maxWait: 10_000 });
      } catch (error) {
        const code = pgErrorCode(error);
        if (opts.replay === false || attempt >= MAX_ENGINE_ATTEMPTS || !code || !REPLAYABLE_SQLSTATES.has(code)) throw error;
        await new Promise((r) => setTimeout(r, replayDelayMs(attempt)));
      }
    }
  }
  return fn(db as Prisma.TransactionClient);
}
