/**
 * `sql` executor: runs one statement against a named connection.
 *
 * Settings (config overlaid by payload, parsed by lib/handlers/builtin-schemas.ts SqlSettings,
 * the schema a save checks too; a bad one fails the attempt naming `payload.<field>`): `sql` (or `statement`, required),
 * `params` (array of positional parameters $1..$n), `connection` (a name from
 * TICKFLOW_SQL_CONNECTIONS = JSON `{ "name": "postgres://..." }`; default:
 * the Tickflow database itself, as a restricted role: ./sql-restricted-role.ts),
 * `searchPath` (named connections only).
 *
 * Each attempt is one transaction with `SET LOCAL statement_timeout` derived from
 * the task timeout. An abort (timeout/cancel) cancels the backend with
 * pg_cancel_backend; a statement still running SQL_TERMINATE_GRACE_MS later (SQL can catch a
 * cancel: `EXCEPTION WHEN query_canceled` in a loop) has its backend terminated
 * (pg_terminate_backend through the admin pool, or the named connection's own pool), and its
 * socket closed SQL_SOCKET_CLOSE_GRACE_MS after that if it still runs: the attempt ends, its slot
 * is freed, and the connection is destroyed, never returned to the pool.
 * Output `{ rowCount, rows, truncated? }`: the last statement's rows, at most SQL_ROW_CAP of them
 * and at most SQL_ROWS_BYTE_CAP bytes of their JSON (runCapped: the rows past either cap are
 * read from the socket and dropped, never held, so a statement returning gigabytes costs the
 * worker no memory, only the time its timeout allows).
 *
 * A connection that ends under an attempt (pg_terminate_backend by another step of the same
 * role, a DBA, a server restart) fails that attempt ("sql: connection terminated …") and nothing
 * else: every checked-out client has an 'error' listener (lib/pg-checkout.ts checkOut), without
 * which node-postgres' 'error' event would be uncaught and end the worker process.
 *
 * Each attempt's transaction also sets what ends a dead worker's statement and takes the task's
 * attempt fence, so two attempts of a task never run their SQL on a server at once
 * (./sql-attempt-settings.ts). A step without `connection` runs as a restricted role, a real
 * privilege boundary, provisioned, verified and guarded by ./sql-restricted-role.ts; the rows
 * kept of a result are ./sql-rows.ts's.
 *
 * If the Tickflow user may not create roles (no CREATEROLE, e.g. a managed
 * database) the default connection refuses every task with an error telling
 * the operator to define TICKFLOW_SQL_CONNECTIONS with a role of their own; it
 * never falls back to the privileged connection. Named connections run as the
 * role in their URL (the operator chose it). A step without `connection` always
 * runs as the restricted role: lib/jobs/handler-permissions.ts lets operators write
 * such steps, and only naming a connection needs an admin. A named connection called
 * `default` is reached only by naming it (`"connection": "default"`); it used to
 * replace the restricted role for every step, handing its credentials to operators.
 */
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import type { Logger } from 'pino';
import { SqlSettings } from '../../lib/handlers/builtin-schemas.ts';
import { checkOut, isConnectionLost, type CheckedOut } from '../../lib/pg-checkout.ts';
import { builtinSettings, HandlerError, settings, type Handler } from './types.ts';
import {
  attemptSettingsStatement,
  END_FENCE_HOLDERS_SQL,
  fenceStatement,
  livenessStatement,
  RESTRICTED_BEGIN,
  sqlAttemptFenceKeys,
  sqlLiveness,
  type SqlLiveness,
} from './sql-attempt-settings.ts';
import { guardSqlRunnerRole, provisionSqlRunner, SQL_ROLE_GUARD_INTERVAL_MS, sqlRunnerVerifier } from './sql-restricted-role.ts';
import { runCapped, SQL_ROW_CAP, SQL_ROWS_BYTE_CAP } from './sql-rows.ts';

/** Longest statement text repeated in a task log line (characters). */
const LOGGED_SQL_CHARS = 2000;

/**
 * An attempt whose lease has less than this left (ms, by the worker's clock) when its SQL ends is
 * rolled back instead of committed: its COMMIT must reach the server before any reaper could
 * hand the task to another worker (a round trip, and the machines' clocks apart).
 */
export const SQL_COMMIT_LEASE_MARGIN_MS = 1000;

/**
 * How long a statement may go on after its attempt's abort (timeout, Cancel) cancelled it with
 * pg_cancel_backend, before the worker ends its backend with pg_terminate_backend. A cancel is an
 * ordinary error (`query_canceled`) that SQL can catch and ignore (PL/pgSQL `EXCEPTION WHEN
 * query_canceled`, in a loop); a termination is not. 3 s leaves a statement that honours the
 * cancel time to roll back, and frees the slot of one that does not soon after.
 */
export const SQL_TERMINATE_GRACE_MS = 3000;

/**
 * Connections an attempt tries when the first message on each fails because the server had ended
 * the pooled connection while it sat idle (after a database restart every idle connection of the
 * pool may be such): the attempt's SQL has not been sent then, so a fresh connection is safe.
 */
export const SQL_STALE_CONNECTION_TRIES = 3;

/**
 * After the termination was asked, how long before the worker closes the connection's socket
 * itself (when the terminate could not be sent: the admin connection unreachable, a named
 * connection's pool full, no privilege). The attempt then ends at once; the backend ends at its
 * next connection check (client_connection_check_interval, sqlLiveness).
 */
export const SQL_SOCKET_CLOSE_GRACE_MS = 1000;

export interface SqlOptions {
  /** the Tickflow database (the `default` connection) */
  defaultUrl?: string;
  /** extra named connections: name -> postgres:// url */
  connections?: Record<string, string>;
  /** how fast a dead worker's statement ends (default: sqlLiveness for a 30 s lease renewed every 10 s) */
  liveness?: SqlLiveness;
  /** where the role guard logs (default: the logger of the latest attempt) */
  logger?: Logger;
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

/** Connection settings of `url` with another user/password (host, port, database, TLS, options kept). */
function asUser(url: string, user: string, password: string): pg.PoolConfig {
  const cfg = parseIntoClientConfig(url) as pg.PoolConfig;
  return { ...cfg, user, password };
}

/** The message of an attempt whose connection ended under it (isConnectionLost). */
function connectionTerminatedMessage(err: unknown): string {
  const e = err as { message?: string; code?: string };
  return `sql: connection terminated (${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}): the server ended the statement's session (pg_terminate_backend, a restart) or the connection was lost`;
}

/**
 * Creates the `sql` executor: its pools (the restricted default connection, provisioned on first
 * use, and each named connection), the admin pool used to provision, cancel, terminate and guard
 * the restricted role, and the role guard's timer (SQL_ROLE_GUARD_INTERVAL_MS).
 */
export function createSqlHandler(options: SqlOptions): SqlHandler {
  const pools = new Map<string, pg.Pool>();
  /** Tickflow's own (privileged) connection: provisioning, cancelling and guarding only, never user SQL. */
  let adminPool: pg.Pool | null = null;
  let runner: Promise<pg.Pool> | null = null;
  /** the provisioned role, for the guard */
  let runnerRole: { role: string; verifier: string; superuser: boolean } | null = null;
  /** backend pids of this worker's restricted connections (the guard never terminates them) */
  const ownPids = new Set<number>();
  const liveness = options.liveness ?? sqlLiveness(30, 10_000);
  /** false once a server refused client_connection_check_interval (see livenessStatement) */
  let checkInterval = true;
  /** the last attempt's logger: the guard logs with it */
  let lastLog: Logger | null = options.logger ?? null;

  function newPool(config: pg.PoolConfig): pg.Pool {
    const pool = new pg.Pool({ max: 4, idleTimeoutMillis: 30_000, ...config });
    pool.on('error', () => undefined);
    return pool;
  }

  function admin(): pg.Pool {
    adminPool ??= newPool({ connectionString: options.defaultUrl!, max: 2 });
    return adminPool;
  }

  // The role guard (guardSqlRunnerRole): a pass at most every SQL_ROLE_GUARD_INTERVAL_MS while
  // default-connection attempts run or have ended since the last pass; none on an idle worker.
  let guardTimer: NodeJS.Timeout | null = null;
  let guardRunning = false;
  let guardDirty = false;
  let guardSuspect = false;
  let lastGuardAt = 0;
  let activeDefault = 0;
  let closed = false;

  function guardSoon(): void {
    if (closed || guardTimer || guardRunning || !runnerRole) return;
    guardTimer = setTimeout(() => void guardPass(), Math.max(0, lastGuardAt + SQL_ROLE_GUARD_INTERVAL_MS - Date.now()));
    guardTimer.unref();
  }

  async function guardPass(): Promise<void> {
    guardTimer = null;
    const r = runnerRole;
    if (closed || !r || (!guardDirty && activeDefault === 0 && !guardSuspect)) return;
    guardDirty = false;
    const suspect = guardSuspect;
    guardSuspect = false;
    guardRunning = true;
    try {
      const res = await guardSqlRunnerRole(admin(), { ...r, keepPids: [...ownPids], suspect });
      if (res.settingsReset || res.passwordChanged || res.terminated) {
        lastLog?.warn({ role: r.role, ...res }, 'sql: the restricted role had changed its own settings or password (an sql step did); set back, its other sessions terminated');
      }
    } catch (err) {
      guardDirty = true; // e.g. "tuple concurrently updated": the next pass writes it again
      if (/does not exist/.test((err as Error).message)) runner = null;
      // two passes (or a step's ALTER ROLE) writing the role's row at once: routine, the next pass writes it
      const level = /concurrently updated/.test((err as Error).message) ? 'debug' : 'warn';
      lastLog?.[level]({ role: r.role, err: (err as Error).message }, 'sql: could not re-assert the restricted role; trying again');
    } finally {
      guardRunning = false;
      lastGuardAt = Date.now();
    }
    if (guardDirty || activeDefault > 0) guardSoon();
  }

  /** The restricted pool of the default connection, provisioning the role on first use. */
  function runnerPool(): Promise<pg.Pool> {
    runner ??= provisionSqlRunner(admin()).then(
      ({ role, password, superuser }) => {
        const old = pools.get('default');
        const pool = newPool(asUser(options.defaultUrl!, role, password));
        pool.on('connect', (c) => {
          const pid = (c as unknown as { processID?: number }).processID;
          if (pid) ownPids.add(pid);
        });
        pool.on('remove', (c) => {
          const pid = (c as unknown as { processID?: number }).processID;
          if (pid) ownPids.delete(pid);
        });
        runnerRole = { role, verifier: sqlRunnerVerifier(password), superuser };
        lastGuardAt = Date.now(); // provisioning did what a pass does
        pools.set('default', pool);
        if (old) void old.end().catch(() => undefined);
        return pool;
      },
      (err: unknown) => {
        runner = null; // try again on the next task (the operator may fix the grants meanwhile)
        throw err;
      },
    );
    return runner;
  }

  /**
   * @param name the step's `connection`, or null without one: then always the restricted role
   *   (`"connection": "default"` means it too, unless TICKFLOW_SQL_CONNECTIONS names a `default`)
   */
  async function connect(named: string | null): Promise<{ conn: CheckedOut; canceller: pg.Pool; isDefault: boolean }> {
    const name = named ?? 'default';
    const isDefault = named === null || (named === 'default' && !Object.prototype.hasOwnProperty.call(options.connections ?? {}, 'default'));
    const url = isDefault ? options.defaultUrl : Object.prototype.hasOwnProperty.call(options.connections ?? {}, name) ? options.connections![name] : undefined;
    if (!url) {
      throw new HandlerError(
        isDefault
          ? 'sql: no default connection (the worker has no DATABASE_URL)'
          : `sql: unknown connection "${name}" (define it in TICKFLOW_SQL_CONNECTIONS)`,
        { code: 'config' },
      );
    }
    if (!isDefault) {
      // named pools live under `named:<name>`: a connection called `default` never shares the restricted role's pool
      let pool = pools.get(`named:${name}`);
      if (!pool) {
        pool = newPool({ connectionString: url });
        pools.set(`named:${name}`, pool);
      }
      return { conn: await checkOut(pool), canceller: pool, isDefault };
    }
    for (let i = 1; ; i++) {
      const pool = await runnerPool();
      try {
        return { conn: await checkOut(pool), canceller: admin(), isDefault };
      } catch (err) {
        const code = (err as { code?: string }).code;
        // Login refused (the role's password was changed, e.g. by the role itself): re-provision
        // once, and have the guard end the sessions that may have logged in with the changed one.
        if (i === 1 && (code === '28P01' || code === '28000')) {
          runner = null;
          guardSuspect = true;
          continue;
        }
        throw new HandlerError(`sql: cannot connect to the default connection as the restricted role: ${(err as Error).message}`, { code: code ?? 'connect' });
      }
    }
  }

  const handler: Handler = async (ctx) => {
    const s = builtinSettings('sql', SqlSettings, settings(ctx));
    const sql = (s.sql ?? s.statement)!;
    const params = s.params ?? [];
    const named = s.connection ? s.connection : null;
    const name = named ?? 'default';
    if (ctx.signal.aborted) throw ctx.signal.reason;
    lastLog = options.logger ?? ctx.log;
    const first = await connect(named);
    const isDefault = first.isDefault;
    let { conn, canceller } = first;
    let client = conn.client;
    if (isDefault) {
      activeDefault++;
      guardSoon();
    }
    const processId = (c: pg.PoolClient) => (c as unknown as { processID?: number }).processID;
    let pid = processId(client);
    let finished = false;
    let graceTimer: NodeJS.Timeout | undefined;
    let closeTimer: NodeJS.Timeout | undefined;
    // A statement that ignores its cancel (it catches query_canceled) is terminated after a grace,
    // and if even that cannot be sent, its socket is closed: the attempt ends either way, and its
    // connection is destroyed, never returned to the pool (conn.lost is set; release destroys it).
    const escalate = () => {
      if (finished) return;
      ctx.log.warn({ connection: name, pid, graceMs: SQL_TERMINATE_GRACE_MS }, 'sql: the statement did not end after its cancel; terminating its backend');
      if (pid) {
        canceller.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]).then(
          (r) => {
            if (!r.rows[0]?.ok && !finished) ctx.log.warn({ connection: name, pid }, 'sql: pg_terminate_backend was refused; closing the connection');
          },
          (err: unknown) => ctx.log.warn({ connection: name, pid, err: (err as Error).message }, 'sql: could not terminate the backend; closing the connection'),
        );
      }
      closeTimer = setTimeout(() => {
        if (finished) return;
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      }, SQL_SOCKET_CLOSE_GRACE_MS);
    };
    const onAbort = () => {
      if (pid) canceller.query('SELECT pg_cancel_backend($1)', [pid]).catch(() => undefined);
      graceTimer = setTimeout(escalate, SQL_TERMINATE_GRACE_MS);
    };
    let broken = false;
    try {
      // aborted while waiting for a connection: nothing was sent
      if (ctx.signal.aborted) throw ctx.signal.reason;
      ctx.signal.addEventListener('abort', onAbort, { once: true });
      // One round trip (a simple-query message of four statements: BEGIN, the settings, the
      // liveness settings, the fence): the transaction never sits idle before its settings apply,
      // whatever idle_in_transaction_session_timeout the session has.
      const fence = sqlAttemptFenceKeys(ctx.taskId);
      const setup = (check: boolean) =>
        `${isDefault ? RESTRICTED_BEGIN : 'BEGIN'}; ${attemptSettingsStatement(ctx.timeoutMs, isDefault)}; ${livenessStatement(liveness, check)}; ${fenceStatement(fence)}`;
      let fenced = false;
      const fencedBy = (r: unknown) => {
        const results = Array.isArray(r) ? (r as pg.QueryResult[]) : [r as pg.QueryResult];
        return results[results.length - 1]?.rows?.[0]?.fenced === true;
      };
      for (let tries = 1; ; tries++) {
        try {
          try {
            fenced = fencedBy(await client.query(setup(checkInterval)));
          } catch (err) {
            // 22023: "client_connection_check_interval must be set to 0 on this platform". The
            // keepalives still bound a vanished machine; a killed process's statement runs to its end.
            if (!checkInterval || (err as { code?: string }).code !== '22023') throw err;
            checkInterval = false;
            ctx.log.warn({ connection: name, err: (err as Error).message }, 'sql: the server cannot check for a vanished client; a killed worker\'s statement runs until it ends');
            await client.query('ROLLBACK');
            fenced = fencedBy(await client.query(setup(false)));
          }
          break;
        } catch (err) {
          // A pooled connection the server ended while it sat idle (a restart, pg_terminate_backend)
          // fails the attempt's first message, before any of the attempt's SQL was sent: the attempt
          // takes a fresh connection instead of failing.
          if (tries >= SQL_STALE_CONNECTION_TRIES || ctx.signal.aborted || !(conn.lost || isConnectionLost(err))) throw err;
          conn.release(true);
          ({ conn, canceller } = await connect(named));
          client = conn.client;
          pid = processId(client);
        }
      }
      if (!fenced) {
        // An earlier attempt of this task still holds the fence: its worker stalled or was cut off
        // past its lease, and its statement runs on. It is ended, and this attempt waits for its
        // transaction to go (the wait is bounded by this attempt's timeout and cancel).
        const ended = await canceller
          .query<{ pid: number; ended: boolean }>(END_FENCE_HOLDERS_SQL, [fence[0], fence[1]])
          .then((r) => r.rows.filter((row) => row.ended), (err: unknown) => {
            ctx.log.warn({ connection: name, err: (err as Error).message }, 'sql: could not end the earlier attempt\'s backend; waiting for it');
            return [];
          });
        ctx.taskLog.warn(`an earlier attempt's statement was still running on connection ${name} (its worker stalled or lost the database past its lease): ${ended.length ? `ended backend ${ended.map((e) => e.pid).join(', ')}` : 'waiting for it to end'}`, { pids: ended.map((e) => e.pid) });
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', fence);
      }
      if (!isDefault && s.searchPath) await client.query(`SET LOCAL search_path = ${s.searchPath}`);
      // Parameter values are not logged (they may be secrets); only how many there are.
      ctx.taskLog.info(sql.length > LOGGED_SQL_CHARS ? `${sql.slice(0, LOGGED_SQL_CHARS)}…` : sql, { connection: name, params: params.length });
      const started = Date.now();
      const res = await runCapped(client, sql, params);
      // A worker stalled or cut off past its lease (the statement's answer waited in its socket)
      // may have lost the task to another worker: what it did is rolled back, never committed.
      if (ctx.signal.aborted) throw ctx.signal.reason;
      const leaseLeftMs = ctx.leaseRemainingMs?.() ?? Infinity;
      if (leaseLeftMs < SQL_COMMIT_LEASE_MARGIN_MS) {
        throw new HandlerError(
          `sql: rolled back, not committed: this worker's lease on the task ${leaseLeftMs <= 0 ? `ran out ${((-leaseLeftMs) / 1000).toFixed(1)} s ago` : 'was about to run out'} (the worker was stalled or could not reach the database), so another worker may run the task`,
          { code: 'lease_lapsed' },
        );
      }
      await client.query('COMMIT');
      const { command, rowCount, rows, truncated } = res;
      ctx.taskLog.info(`${command ?? 'statement'}: ${rowCount} row(s) in ${Date.now() - started} ms`, { rowCount, command });
      if (truncated) ctx.taskLog.info(`output keeps the first ${rows.length} of ${truncated.received} row(s): at most ${SQL_ROW_CAP} rows and ${SQL_ROWS_BYTE_CAP} bytes of their JSON`);
      return { rowCount, rows, ...(truncated ? { truncated: true } : {}) };
    } catch (err) {
      if (conn.lost || isConnectionLost(err)) broken = true;
      else {
        await client.query('ROLLBACK').catch(() => {
          broken = true;
        });
      }
      if (ctx.signal.aborted) throw ctx.signal.reason ?? err;
      if (err instanceof HandlerError) throw err;
      if (broken && (conn.lost || isConnectionLost(err))) {
        throw new HandlerError(connectionTerminatedMessage(conn.lost && !isConnectionLost(err) ? conn.lost : err), { code: (err as { code?: string }).code ?? 'connection_terminated' });
      }
      const e = err as { message?: string; code?: string };
      throw new HandlerError(`sql: ${e.message ?? String(err)}`, { code: e.code ?? 'sql' });
    } finally {
      finished = true;
      clearTimeout(graceTimer);
      clearTimeout(closeTimer);
      ctx.signal.removeEventListener('abort', onAbort);
      // Nothing the SQL left in the session (session GUCs, advisory locks, temp tables,
      // prepared statements) may reach the next attempt on this pooled connection.
      if (!broken && !conn.lost && isDefault) await client.query('DISCARD ALL').catch(() => (broken = true));
      conn.release(broken);
      if (isDefault) {
        activeDefault--;
        guardDirty = true; // this attempt's SQL may have changed the role: the next pass looks
        guardSoon();
      }
    }
  };

  return {
    handler,
    async close() {
      closed = true;
      if (guardTimer) clearTimeout(guardTimer);
      guardTimer = null;
      const all = [...pools.values(), ...(adminPool ? [adminPool] : [])];
      pools.clear();
      adminPool = null;
      runner = null;
      runnerRole = null;
      await Promise.all(all.map((p) => p.end().catch(() => undefined)));
    },
  };
}
