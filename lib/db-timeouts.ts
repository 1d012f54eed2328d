/**
 * Bounds on how long Tickflow waits for its database (docs/operations.md "Database restarts and
 * failover", README "Configuration" `TICKFLOW_DB_QUERY_TIMEOUT_MS`).
 *
 * A database that stops answering without closing its connections (a hung or stopped server
 * process, a network partition that drops packets) never makes node-postgres fail on its own: a
 * page, a server action, a REST call or a worker loop would wait forever, and the pool's
 * connections would pile up behind it. So the pools Tickflow opens for its own statements
 * (lib/db.ts createPrismaClient, lib/sql-pool.ts createSqlPool, the worker's task log pool) get:
 * - a connect timeout (DB_CONNECT_TIMEOUT_MS): opening a connection, and waiting for a free one
 *   of a full pool (pg-pool applies connectionTimeoutMillis to both);
 * - a client-side query timeout (node-postgres `query_timeout`): the caller gets an error
 *   ("Query read timeout") once a statement has had no answer for the setting plus
 *   QUERY_TIMEOUT_GRACE_MS. It works behind a transaction-mode pooler too, which does not forward
 *   startup parameters;
 * - where startup parameters reach the server (TICKFLOW_PREPARED_STATEMENTS on, the same rule as
 *   the hot path's planner settings), the server's own `statement_timeout` at the setting, so a
 *   statement that is merely slow is stopped by the server (SQLSTATE 57014) on a connection that
 *   stays usable, before the client gives up on it.
 * The client-side timeout leaves the statement's connection busy with an answer that may never
 * come (or, later, an open transaction a rollback never reached): node-postgres keeps that
 * connection as it is and pg-pool would hand it to the next caller, so BoundedClient closes it at
 * once; the pool then drops it (a client that is ending is never reused) and opens a fresh one.
 * Both errors count as the database being unavailable (lib/infra/database-unavailable.ts).
 *
 * Not bounded here, on purpose: the worker's `sql` handler's pool (worker/handlers/sql.ts), whose
 * attempts have their own per-attempt statement_timeout from the task's timeout, which may be longer;
 * migrations (lib/infra/migrate.ts, their own client); the LISTEN connection (worker/listener.ts),
 * which waits for notifications by design.
 */
import pg from 'pg';

/** Time to open a connection, or to wait for a free one of a full pool (ms). */
export const DB_CONNECT_TIMEOUT_MS = 10_000;

/** TICKFLOW_DB_QUERY_TIMEOUT_MS when unset (ms): Prisma's own interactive-transaction limit in lib/db.ts inTransaction. */
export const DEFAULT_DB_QUERY_TIMEOUT_MS = 30_000;

/**
 * Bounds of TICKFLOW_DB_QUERY_TIMEOUT_MS besides 0 (ms). Below 4 s the log search's own limit
 * (5 s, lib/task-logs/search-lines.ts) is never reached: a long search then answers "database
 * unavailable" instead of "narrow it" (README "Configuration").
 */
export const MIN_DB_QUERY_TIMEOUT_MS = 1_000;
export const MAX_DB_QUERY_TIMEOUT_MS = 86_400_000;

/**
 * How much longer than the server's statement_timeout the client waits (ms): the time a statement
 * cancelled by the server needs to report it, so that a slow statement on a live server ends with
 * the server's error and keeps its connection, and only a silent server meets the client's timeout.
 */
export const QUERY_TIMEOUT_GRACE_MS = 1_000;

/**
 * The query timeout from TICKFLOW_DB_QUERY_TIMEOUT_MS.
 * @returns milliseconds; 0 turns the query timeout off (server and client side)
 * @throws Error naming the variable when the value is not 0 or a whole number of milliseconds
 *   from MIN_DB_QUERY_TIMEOUT_MS to MAX_DB_QUERY_TIMEOUT_MS
 */
export function dbQueryTimeoutFromEnv(env: Record<string, string | undefined> = process.env): number {
  const raw = env.TICKFLOW_DB_QUERY_TIMEOUT_MS?.trim();
  if (!raw) return DEFAULT_DB_QUERY_TIMEOUT_MS;
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (n === 0 || (n >= MIN_DB_QUERY_TIMEOUT_MS && n <= MAX_DB_QUERY_TIMEOUT_MS)) return n;
  throw new Error(
    `TICKFLOW_DB_QUERY_TIMEOUT_MS must be 0 (no timeout) or a whole number of milliseconds from ${MIN_DB_QUERY_TIMEOUT_MS} to ${MAX_DB_QUERY_TIMEOUT_MS}, not "${raw}"`,
  );
}

/** What pg's client-side query timeout rejects a statement with (node_modules/pg/lib/client.js). */
export const QUERY_READ_TIMEOUT_MESSAGE = 'Query read timeout';

function isQueryReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === QUERY_READ_TIMEOUT_MESSAGE;
}

type Callback = (err: Error | null, res?: unknown) => void;

/**
 * A node-postgres client that closes its connection as soon as one of its statements meets the
 * client-side query timeout (see the file comment): its late answer, and the statements queued
 * behind it, can then never reach the next user of the connection. The statements queued behind
 * it fail with "Connection terminated"; the pool drops the client when it is released.
 */
export class BoundedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    const discard = () => {
      // end() marks the client as ending (so no 'error' event and no reuse); the socket is destroyed
      // rather than closed politely, since a silent server would never answer the close.
      this.end().catch(() => undefined);
      (this as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    };
    (this as unknown as { query: unknown }).query = (...args: unknown[]) => {
      const at = args.findIndex((a) => typeof a === 'function');
      if (at >= 0) {
        const callback = args[at] as Callback;
        args[at] = (err: Error | null, res?: unknown) => {
          if (isQueryReadTimeout(err)) discard();
          callback(err, res);
        };
        return query(...args);
      }
      const result = query(...args);
      if (result instanceof Promise) {
        return result.catch((err: unknown) => {
          if (isQueryReadTimeout(err)) discard();
          throw err;
        });
      }
      return result;
    };
  }
}

/**
 * The pool options that bound a pool's waits (see the file comment): spread them into `new pg.Pool({...})`.
 * @param queryTimeoutMs the setting (dbQueryTimeoutFromEnv), in ms; 0 leaves statements unbounded
 * @param opts.serverSide whether to send statement_timeout as a startup parameter: pass
 *   preparedStatementsEnabled() (lib/sql-pool.ts), false behind a transaction-mode pooler
 * @param opts.connectTimeoutMs override of DB_CONNECT_TIMEOUT_MS (tests)
 */
export function boundedPoolOptions(queryTimeoutMs: number, opts: { serverSide: boolean; connectTimeoutMs?: number }): pg.PoolConfig {
  const serverSide = opts.serverSide;
  return {
    Client: BoundedClient,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DB_CONNECT_TIMEOUT_MS,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs + QUERY_TIMEOUT_GRACE_MS } : {}),
    ...(queryTimeoutMs > 0 && serverSide ? { statement_timeout: queryTimeoutMs } : {}),
  };
}
