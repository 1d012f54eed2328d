/**
 * `sql` executor: runs one statement against a named connection.
 *
 * Settings (config overlaid by payload): `sql` (or `statement`, required),
 * `params` (array of positional parameters $1..$n), `connection` (a name from
 * TICKFLOW_SQL_CONNECTIONS = JSON `{ "name": "postgres://..." }`; default:
 * the Tickflow database itself), `searchPath` (named connections only).
 *
 * Each attempt is one transaction with `SET LOCAL statement_timeout` derived from
 * the task timeout. On the default connection it also runs with
 * `SET LOCAL search_path = tickflow_scratch` (created on first use), so that
 * unqualified names in user SQL land in a scratch schema, not on Tickflow's own
 * tables. This is a guard against accidents, not a security boundary: a
 * schema-qualified name still reaches any table the role can see; use a named
 * connection with a restricted role for untrusted SQL.
 * An abort (timeout/cancel) cancels the backend with pg_cancel_backend.
 * Output `{ rowCount, rows (first SQL_ROW_CAP), truncated? }`.
 */
import pg from 'pg';
import { HandlerError, settings, type Handler } from './types.ts';

export const SQL_ROW_CAP = 1000;
export const SCRATCH_SCHEMA = 'tickflow_scratch';

export interface SqlOptions {
  /** the Tickflow database (the `default` connection) */
  defaultUrl?: string;
  /** extra named connections: name -> postgres:// url */
  connections?: Record<string, string>;
}

/** Parses TICKFLOW_SQL_CONNECTIONS (JSON object of name -> url). Throws a readable Error when malformed. */
export function parseSqlConnections(raw: string | undefined): Record<string, string> {
  if (!raw || !raw.trim()) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch (err) {
    throw new Error(`TICKFLOW_SQL_CONNECTIONS must be a JSON object {"name": "postgres://..."}: ${(err as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('TICKFLOW_SQL_CONNECTIONS must be a JSON object {"name": "postgres://..."}');
  const out: Record<string, string> = {};
  for (const [k, url] of Object.entries(v)) {
    if (typeof url !== 'string') throw new Error(`TICKFLOW_SQL_CONNECTIONS.${k} must be a connection string`);
    out[k] = url;
  }
  return out;
}

export interface SqlHandler {
  handler: Handler;
  /** closes the pools opened so far */
  close(): Promise<void>;
}

export function createSqlHandler(options: SqlOptions): SqlHandler {
  const pools = new Map<string, pg.Pool>();
  let scratchReady: Promise<void> | null = null;

  function poolFor(name: string): { pool: pg.Pool; isDefault: boolean } {
    const isDefault = name === 'default' && !options.connections?.default;
    const url = isDefault ? options.defaultUrl : options.connections?.[name];
    if (!url) {
      throw new HandlerError(
        name === 'default'
          ? 'sql: no default connection (the worker has no DATABASE_URL)'
          : `sql: unknown connection "${name}" (define it in TICKFLOW_SQL_CONNECTIONS)`,
        { code: 'config' },
      );
    }
    let pool = pools.get(name);
    if (!pool) {
      pool = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 30_000 });
      pool.on('error', () => undefined);
      pools.set(name, pool);
    }
    return { pool, isDefault };
  }

  const handler: Handler = async (ctx) => {
    const s = settings(ctx);
    const sql = typeof s.sql === 'string' ? s.sql : typeof s.statement === 'string' ? s.statement : '';
    if (!sql.trim()) throw new HandlerError('sql: `sql` (the statement) is required', { code: 'config' });
    const params = Array.isArray(s.params) ? s.params : [];
    const name = typeof s.connection === 'string' && s.connection ? s.connection : 'default';
    const { pool, isDefault } = poolFor(name);
    if (isDefault) {
      scratchReady ??= pool.query(`CREATE SCHEMA IF NOT EXISTS ${SCRATCH_SCHEMA}`).then(
        () => undefined,
        (err) => {
          scratchReady = null;
          throw err;
        },
      );
      await scratchReady;
    }
    if (ctx.signal.aborted) throw ctx.signal.reason;
    const client = await pool.connect();
    const pid = (client as unknown as { processID?: number }).processID;
    const onAbort = () => {
      if (pid) pool.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    let broken = false;
    try {
      await client.query('BEGIN');
      const timeoutMs = Math.max(1, Math.min(Math.floor(ctx.timeoutMs), 2 ** 31 - 1));
      await client.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
      if (isDefault) await client.query(`SET LOCAL search_path = ${SCRATCH_SCHEMA}`);
      else if (typeof s.searchPath === 'string' && /^[A-Za-z_][A-Za-z0-9_, ]*$/.test(s.searchPath)) {
        await client.query(`SET LOCAL search_path = ${s.searchPath}`);
      }
      const res = await client.query({ text: sql, values: params });
      await client.query('COMMIT');
      const rows = Array.isArray(res.rows) ? res.rows : [];
      return {
        rowCount: res.rowCount ?? rows.length,
        rows: rows.slice(0, SQL_ROW_CAP),
        ...(rows.length > SQL_ROW_CAP ? { truncated: true } : {}),
      };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
      const e = err as { message?: string; code?: string };
      throw new HandlerError(`sql: ${e.message ?? String(err)}`, { code: e.code ?? 'sql' });
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      client.release(broken);
    }
  };

  return {
    handler,
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.end().catch(() => undefined)));
    },
  };
}
