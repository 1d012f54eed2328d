/**
 * A connection pool for the engine's own SQL on node-postgres, without Prisma: the worker's
 * claims and completions (worker/create-worker.ts). It speaks the two raw methods the engine's
 * statements use (`$queryRawUnsafe`, `$executeRawUnsafe`, Prisma's names), so the same
 * statement functions run on a Prisma client, a Prisma transaction or this pool.
 *
 * Why a pool of its own (docs/engine.md "The hot path"):
 * - Cost: a claim or completion batch is one large statement; Prisma's raw-query layer added
 *   ~15 µs of worker CPU per task around it (bench/throughput.ts), which this skips.
 * - Plans that never depend on statistics. The history tables are partitioned by week, and a
 *   week PostgreSQL has not analysed yet (a young partition, or autovacuum off) makes the
 *   planner take a few thousand ready tasks for one and read the whole partition and sort it
 *   instead of walking the claim index, or scan a status index for a task it could reach by
 *   primary key. Every statement on this pool is a keyed lookup or an ordered walk of a partial
 *   index, so its sessions run with sequential and bitmap scans disabled (`planner settings`),
 *   and merge and hash joins too (a young week estimated small was merged whole with a batch
 *   instead of probed per row): the planner then takes the index paths, each input row to its
 *   partners by a nested loop, whatever it believes about row counts. A join that reaches rows
 *   by their week alone is the SQL's to avoid (docs/engine.md "The hot path"). JIT is off
 *   with them, since a disabled scan still counts in the plan's cost on PostgreSQL 15, which
 *   would otherwise compile every plan. Generic plans are forced: planning these statements
 *   over every weekly partition costs more than running them, and their best plan does not
 *   depend on the parameters.
 *
 * The settings go as the session's startup options, or — behind a transaction-mode pooler
 * (TICKFLOW_PREPARED_STATEMENTS=0), which does not forward startup options — as SET LOCAL at
 * the start of each transaction, a single statement then running in one of its own.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { boundedPoolOptions, dbQueryTimeoutFromEnv } from './db-timeouts.ts';
import { trackPool } from './metrics/pool-stats.ts';

/** What the engine's SQL needs of a connection: raw statements (a Prisma client or transaction, or a SqlPool). */
export interface SqlClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** A SqlClient over a node-postgres pool, with transactions. */
export interface SqlPool extends SqlClient {
  /** Runs `fn` in one transaction (READ COMMITTED) on one connection; rolls back when it throws. */
  $transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  $disconnect(): Promise<void>;
  readonly pool: pg.Pool;
}

/** The hot path's planner settings (see the file comment). */
export const HOT_PATH_SETTINGS: Readonly<Record<string, string>> = {
  enable_seqscan: 'off',
  enable_bitmapscan: 'off',
  enable_mergejoin: 'off',
  enable_hashjoin: 'off',
  jit: 'off',
  plan_cache_mode: 'force_generic_plan',
};

/** True unless TICKFLOW_PREPARED_STATEMENTS turns named prepared statements off (a transaction-mode pooler). */
export function preparedStatementsEnabled(): boolean {
  return !/^(0|false|off|no)$/i.test(process.env.TICKFLOW_PREPARED_STATEMENTS ?? '');
}

const PREPARED_PREFIX = '/* tickflow:';
const LABEL_RE = /^[a-z0-9-]{1,32}$/;
const statementNames = new Map<string, string>();

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

/** The server-side statement name of a marked statement (label + hash of its whole text), else undefined (unnamed). */
export function preparedStatementName(sql: string): string | undefined {
  if (!sql.startsWith(PREPARED_PREFIX)) return undefined;
  let name = statementNames.get(sql);
  if (!name) {
    const label = sql.slice(PREPARED_PREFIX.length, sql.indexOf(' */'));
    name = `tf_${label}_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
    // Marked texts are fixed, so this stays small; the cap only guards against a misuse.
    if (statementNames.size < 500) statementNames.set(sql, name);
  }
  return name;
}

/**
 * A pool's `onConnect` hook that puts each new session in UTC (`SET TIME ZONE 'UTC'`), awaited
 * before the connection serves anything; a failure ends the connection and is reported to its
 * first user. Prisma's driver adapter sends a Date as a wall-clock time in UTC with no zone, which
 * PostgreSQL reads in the session's TimeZone (PostgreSQL docs 8.5.1.3, "Time Stamps"): on a
 * server whose zone is not UTC (initdb takes the host's) every such instant would be off by the
 * zone's offset, and the adapter reads timestamptz rows back without their offset. A SET rather
 * than a startup option: PgBouncer refuses startup options, but tracks TimeZone per client and
 * sets it on whichever server connection the client gets.
 */
export async function utcSession(client: pg.ClientBase): Promise<void> {
  await client.query(`SET TIME ZONE 'UTC'`);
}

/** `-c name=value` startup options for a session. */
function startupOptions(settings: Readonly<Record<string, string>>): string {
  return Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`).join(' ');
}

/**
 * Creates a SqlPool.
 * @param url a postgres:// connection string
 * @param max connections in the pool
 * @param opts.settings session settings for every connection (e.g. HOT_PATH_SETTINGS)
 * @param opts.queryTimeoutMs the query timeout in ms, 0 for none (default: TICKFLOW_DB_QUERY_TIMEOUT_MS;
 *   lib/db-timeouts.ts): the worker's claims and completions are short statements, and a silent
 *   database must stop its loops (worker/db-health.ts) rather than hang them
 * @throws Error when TICKFLOW_DB_QUERY_TIMEOUT_MS is read and is not a valid value
 */
export function createSqlPool(url: string, max: number, opts: { settings?: Readonly<Record<string, string>>; queryTimeoutMs?: number } = {}): SqlPool {
  const settings = opts.settings && Object.keys(opts.settings).length > 0 ? opts.settings : null;
  // Behind a transaction-mode pooler startup options do not reach the server session that runs
  // a statement (PgBouncer refuses them), so each transaction sets them itself (sqlPoolOver).
  const perTransaction = settings !== null && !preparedStatementsEnabled();
  const bounds = boundedPoolOptions(opts.queryTimeoutMs ?? dbQueryTimeoutFromEnv(), { serverSide: preparedStatementsEnabled() });
  const pool = new pg.Pool({ connectionString: url, max, onConnect: utcSession, ...bounds, ...(settings && !perTransaction ? { options: startupOptions(settings) } : {}) });
  // An idle connection's error (server restart) must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  trackPool(pool);
  return sqlPoolOver(pool, { settings: perTransaction ? settings : null, ownsPool: true });
}

/**
 * A SqlPool over an existing node-postgres pool (createSqlPool's own, or a Prisma client's:
 * lib/db.ts directSqlPool). Marked statements (preparedSql) run named unless
 * TICKFLOW_PREPARED_STATEMENTS is off.
 * @param opts.settings settings each transaction sets with SET LOCAL (a single statement then
 *   runs in a transaction of its own); null: none
 * @param opts.ownsPool $disconnect ends the pool (else it does nothing: the pool is someone else's)
 */
export function sqlPoolOver(pool: pg.Pool, opts: { settings: Readonly<Record<string, string>> | null; ownsPool: boolean }): SqlPool {
  const prepared = preparedStatementsEnabled();
  const setLocal = opts.settings ? Object.entries(opts.settings).map(([k, v]) => `SET LOCAL ${k} = ${pg.escapeLiteral(v)}`).join('; ') : '';
  const query = async (c: pg.Pool | pg.PoolClient, text: string, values: unknown[]) => {
    const name = prepared ? preparedStatementName(text) : undefined;
    return c.query(name ? { name, text, values } : { text, values });
  };
  const client = (c: pg.Pool | pg.PoolClient): SqlClient => ({
    async $queryRawUnsafe<T>(text: string, ...values: unknown[]) {
      return (await query(c, text, values)).rows as T;
    },
    async $executeRawUnsafe(text: string, ...values: unknown[]) {
      return (await query(c, text, values)).rowCount ?? 0;
    },
  });
  const transaction = async <T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> => {
    const c = await pool.connect();
    let broken: unknown;
    // A connection lost between the transaction's statements (a server restart) reports here, not
    // as an uncaught error: the next statement fails with it, and the connection is destroyed.
    const onError = (err: Error) => {
      broken = err;
    };
    c.on('error', onError);
    try {
      await c.query(setLocal ? `BEGIN; ${setLocal}` : 'BEGIN');
      const result = await fn(client(c));
      await c.query('COMMIT');
      return result;
    } catch (error) {
      await c.query('ROLLBACK').catch((e: unknown) => {
        broken = e;
      });
      throw error;
    } finally {
      c.off('error', onError);
      // A connection whose rollback failed or that was lost is in an unknown state: destroy it rather than reuse it.
      c.release(broken instanceof Error ? broken : undefined);
    }
  };
  const direct = client(pool);
  const single = <T>(fn: (c: SqlClient) => Promise<T>): Promise<T> => (setLocal ? transaction(fn) : fn(direct));
  return {
    pool,
    $queryRawUnsafe: <T>(text: string, ...values: unknown[]) => single((c) => c.$queryRawUnsafe<T>(text, ...values)),
    $executeRawUnsafe: (text: string, ...values: unknown[]) => single((c) => c.$executeRawUnsafe(text, ...values)),
    $transaction: transaction,
    $disconnect: async () => {
      if (opts.ownsPool) await pool.end();
    },
  };
}

/** True for a SqlPool (not a Prisma client). */
export function isSqlPool(db: unknown): db is SqlPool {
  return typeof db === 'object' && db !== null && 'pool' in db && (db as SqlPool).pool instanceof pg.Pool;
}
