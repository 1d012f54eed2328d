/**
 * What to tell the operator when Tickflow cannot open a connection to its database: one message
 * for `npm start`, `npm run migrate` and `npm run worker` (README "Configuration", `DATABASE_URL`).
 * It names the server, the user and the database of the URL — never its password — and says the
 * fix. Three kinds, each with its own wording:
 * - `missing-database`: the server answers but the database does not exist (SQLSTATE 3D000).
 *   Tickflow never creates a database on a server it does not run (the operator chooses its
 *   owner, encoding and placement, as with Airflow's or Hatchet's database): the message gives
 *   the `createdb` command and the SQL;
 * - `authentication`: the server refused the user (28P01 wrong password, 28000 unknown role or
 *   no pg_hba.conf entry), or asked for a password the URL does not hold;
 * - `unreachable`: nothing answered, or the server is not accepting connections right now (the
 *   errors of lib/infra/database-unavailable.ts): the worker waits for those
 *   (docs/operations.md "Database restarts and failover"); the other commands stop.
 */
import { parse } from 'pg-connection-string';
import { isDatabaseUnavailable } from './database-unavailable.ts';

export type DatabaseConnectProblem = 'missing-database' | 'authentication' | 'unreachable';

/** A failed connection, explained; `cause` is the driver's error. */
export class DatabaseConnectError extends Error {
  constructor(readonly problem: DatabaseConnectProblem, message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'DatabaseConnectError';
  }
}

interface Target {
  host: string;
  port: string;
  user: string;
  database: string;
  password: string;
}

function target(url: string): Target {
  const c = parse(url);
  return {
    host: c.host || 'localhost',
    port: c.port || '5432',
    user: c.user || process.env.USER || 'postgres',
    database: c.database || c.user || 'postgres',
    password: c.password ?? '',
  };
}

/** `host:port`, or the socket folder for a Unix-socket URL. */
function serverOf(t: Target): string {
  return t.host.startsWith('/') ? `${t.host} (Unix socket, port ${t.port})` : `${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
}

const shellWord = (s: string) => (/^[\w./:@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const sqlIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Explains a failed connection attempt to `url`.
 * @param error what the pg driver threw on connect (or on the first query)
 * @param url the database URL it connected to
 * @returns a DatabaseConnectError whose message names the server, user and database and says the
 *   fix, or `error` itself when it is not a connection problem (a bug, a failing statement)
 */
export function explainConnectError(error: unknown, url: string): unknown {
  const t = target(url);
  const server = serverOf(t);
  // The server's own words: they never hold the password, but guard against a driver that echoes the URL.
  const said = (e: unknown) => (t.password ? messageOf(e).replaceAll(t.password, '***') : messageOf(e));
  const code = codeOf(error);
  if (code === '3D000') {
    return new DatabaseConnectError(
      'missing-database',
      `database "${t.database}" does not exist on the PostgreSQL server at ${server} (DATABASE_URL). ` +
        'Tickflow does not create its database on a server it does not run: create it, as a role allowed to create databases, ' +
        `with \`createdb -h ${shellWord(t.host)} -p ${t.port} -U ${shellWord(t.user)} ${shellWord(t.database)}\` ` +
        `or the SQL \`CREATE DATABASE ${sqlIdent(t.database)} OWNER ${sqlIdent(t.user)};\`, then try again.`,
      { cause: error },
    );
  }
  const noPassword = /client password must be a string|requested password-based authentication, but no password/i.test(messageOf(error));
  if (code === '28P01' || code === '28000' || noPassword) {
    const why = noPassword ? 'the server asks for a password and DATABASE_URL holds none' : said(error);
    return new DatabaseConnectError(
      'authentication',
      `PostgreSQL at ${server} refused user "${t.user}" for database "${t.database}": ${why}. ` +
        `Check the user name and password in DATABASE_URL (postgresql://USER:PASSWORD@${serverOf(t)}/${t.database}) and the server's pg_hba.conf.`,
      { cause: error },
    );
  }
  if (isDatabaseUnavailable(error)) {
    const why =
      code === 'ECONNREFUSED' ? 'connection refused (nothing listens on that port)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? `the host name "${t.host}" does not resolve`
      : said(error);
    return new DatabaseConnectError(
      'unreachable',
      `cannot reach PostgreSQL at ${server}: ${why}. Is the server running and reachable from this machine, and are the host and port in DATABASE_URL right?`,
      { cause: error },
    );
  }
  return error;
}
