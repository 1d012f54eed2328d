/**
 * Whether an error means "the database cannot be reached right now" (down,
 * restarting, failing over, out of connections) rather than a bug or bad
 * input. The one rule for every process: the console answers those with 503
 * and a clear message instead of a 500, and a worker stops its loops and
 * probes until the server answers (worker/db-health.ts) instead of counting a
 * failure (docs/operations.md "Database restarts and failover").
 *
 * Recognised, anywhere in the error's `cause` / Prisma `meta` /
 * `meta.driverAdapterError` chain: Prisma's P1001 (cannot reach), P1002 (timed
 * out), P1017 (server closed the connection), P2024 (pool timeout); the pg
 * driver adapter's kinds DatabaseNotReachable, ConnectionClosed, SocketTimeout,
 * TooManyConnections; PostgreSQL SQLSTATE class 08 (connection exception),
 * 57P01–57P03 (shutdown, crash, cannot connect now) and 53300 (too many
 * connections) — see the PostgreSQL docs, "PostgreSQL Error Codes"; Node socket
 * errors (ECONNREFUSED, ECONNRESET, …); and the messages node-postgres and
 * PostgreSQL give for a connection that ended or was never made. A statement
 * the server refused (a unique violation, a deadlock, a transaction that could
 * not start in time) is not an outage. So is a DatabaseUnavailableError (its digest).
 *
 * A statement that met the query timeout (TICKFLOW_DB_QUERY_TIMEOUT_MS, lib/db-timeouts.ts)
 * counts too: node-postgres's "Query read timeout" (no answer at all: a hung server, a
 * partition) and PostgreSQL's "canceling statement due to statement timeout" (SQLSTATE 57014
 * with that text; a server too slow to answer in time). Either way the database cannot serve
 * the request now, and the caller should come back later, not see a bug. 57014 alone is not
 * enough: a statement cancelled on request (pg_cancel_backend, a worker aborting an attempt)
 * says "due to user request". Code that sets a shorter statement_timeout of its own for one
 * statement handles its 57014 itself before this rule sees it (lib/task-logs/search-lines.ts).
 */
import { findInErrorChain } from './error-chain.ts';
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
const MESSAGES =
  /\b(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|EPIPE)\b|Connection terminated|terminating connection|connection (is )?closed|server closed the connection|timeout exceeded when trying to connect|connect(ion)? timeout|Client has encountered a connection error|Query read timeout|canceling statement due to statement timeout|the database system is (shutting down|starting up|in recovery|not yet accepting)|Can't reach database server|sorry, too many clients/i;

/** True when `error` (or anything it wraps) says the database is unreachable or refusing connections. */
export function isDatabaseUnavailable(error: unknown): boolean {
  return findInErrorChain(error, (x) => {
    if (x.digest === DATABASE_UNAVAILABLE_DIGEST) return true;
    const code = typeof x.code === 'string' ? x.code : typeof x.originalCode === 'string' ? x.originalCode : undefined;
    if (code && (PRISMA_CODES.has(code) || SQLSTATES.has(code) || SOCKET_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    if (typeof x.kind === 'string' && ADAPTER_KINDS.has(x.kind)) return true;
    if (typeof x.message === 'string' && MESSAGES.test(x.message)) return true;
    // the pg driver adapter keeps a PostgreSQL error's text as originalMessage (a statement timeout's)
    if (typeof x.originalMessage === 'string' && MESSAGES.test(x.originalMessage)) return true;
    return null;
  }) ?? false;
}

/** What the console says while the database is away (API JSON and pages). */
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database is not reachable right now (restarting, failing over or overloaded). Tickflow keeps retrying; try again in a few seconds.';

/** Seconds a client should wait before retrying (the Retry-After header). */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * The HTML of the console's 503 page while the database is away, self-contained (no script, no stylesheet) and
 * reloading itself: answered before rendering (proxy.ts) and in place of a page that met the outage while
 * rendering (lib/infra/outage-status.ts), so both read the same, with or without JavaScript.
 */
export function databaseUnavailablePage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${DATABASE_RETRY_AFTER_SECONDS}"><title>Tickflow: database unavailable</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#18181b"><main data-testid="database-unavailable">
<h1 style="font-size:1.1rem">Database unavailable</h1><p>${DATABASE_UNAVAILABLE_MESSAGE}</p><p style="color:#71717a;font-size:.85rem">This page reloads by itself every ${DATABASE_RETRY_AFTER_SECONDS} seconds.</p></main></body></html>`;
}

/**
 * The `digest` of a DatabaseUnavailableError. Next.js keeps an error's own digest when it sends a server
 * error to the browser (and hides its message in production builds), so the console's error boundaries
 * (components/error-boundary-view.tsx) recognise the outage by it.
 */
export const DATABASE_UNAVAILABLE_DIGEST = 'TICKFLOW_DATABASE_UNAVAILABLE';

/** What console code throws for an outage met while rendering a page (app/_lib/page-error.ts outageOr); `cause` is the driver's error. */
export class DatabaseUnavailableError extends Error {
  readonly digest = DATABASE_UNAVAILABLE_DIGEST;
  constructor(cause?: unknown) {
    super(DATABASE_UNAVAILABLE_MESSAGE, { cause });
    this.name = 'DatabaseUnavailableError';
  }
}
