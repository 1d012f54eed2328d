/**
 * `sql` executor: runs one statement against a named connection.
 *
 * Settings (config overlaid by payload, parsed by lib/handlers/builtin-schemas.ts SqlSettings,
 * the schema a save checks too; a bad one fails the attempt naming `payload.<field>`): `sql` (or `statement`, required),
 * `params` (array of positional parameters $1..$n), `connection` (a name from
 * TICKFLOW_SQL_CONNECTIONS = JSON `{ "name": "postgres://..." }`; default:
 * the Tickflow database itself, as a restricted role — see below),
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
 * A dead worker's statement stops with it: PostgreSQL does not notice a vanished client
 * while a query runs, so the backend of a SIGKILLed worker would go on (holding its locks)
 * after the lease is reclaimed and attempt 2 starts. Each attempt's transaction therefore
 * also sets, with SET LOCAL (what a transaction-mode PgBouncer passes on; startup options it
 * does not), the settings of sqlLiveness(): `client_connection_check_interval` (PostgreSQL
 * 14+) makes the running query poll its socket and end when the client closed it (a killed
 * process: the kernel closes its sockets), and the server-side `tcp_keepalives_*` and
 * `tcp_user_timeout` make the socket fail when the worker's machine vanished without closing
 * it. All are user-settable, so the restricted role sets them itself. Values: sqlLiveness().
 *
 * A stalled worker's statement does not stop: a worker stopped (SIGSTOP) or cut off from the
 * database past its lease keeps its socket open, so its statement runs on while the reaper hands
 * the task to another worker. Each attempt's transaction therefore takes the task's attempt fence
 * (sqlAttemptFenceKeys: a transaction-level advisory lock, tried in the same round trip as the
 * settings); an attempt that finds it held ends the holding backend (END_FENCE_HOLDERS_SQL, through
 * the admin pool or the named connection's own) and waits for the lock before its SQL runs, so two
 * attempts of a task never run their SQL on a server at once. Text that ends the transaction
 * itself (`COMMIT` in a multi-statement text) lets the fence go there.
 *
 * The `default` connection is a real privilege boundary (H2). It does NOT use
 * the worker's own (privileged) DATABASE_URL user — `SET search_path` or
 * `SET ROLE` would not be a boundary, the SQL text can undo either. It logs in
 * as a dedicated role, `sqlRunnerRoleName(database)` =
 * `tickflow_sql_<first 16 hex of sha256(database name)>` (roles are
 * cluster-wide, so the name is per database: two Tickflow databases, or
 * concurrent test databases, on one server never share or race one role):
 * LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT (and NOREPLICATION
 * NOBYPASSRLS), member of no role, granted nothing on Tickflow's tables;
 * it owns schema `tickflow_scratch` (its search_path) and nothing else. Same
 * host/port/database/TLS settings as DATABASE_URL, its own password.
 *
 * Provisioning (first use per worker, idempotent, serialised across workers
 * by a transaction-level advisory lock): CREATE ROLE (or ALTER ROLE back to
 * the attributes above), password = settings row `sql_runner_password`
 * (generated once, random; the restricted role cannot read `settings`; it is
 * re-applied on every provisioning, when a login is refused, and by the role
 * guard below), role-level settings reset (ALTER ROLE … [IN DATABASE …] RESET ALL, then
 * search_path), `tickflow_scratch` created or handed over to the role
 * (with the objects already in it, for databases that used the old
 * unrestricted executor). When the Tickflow user is not a superuser it grants
 * itself membership in the restricted role (never the other way round) so it
 * may hand the schema over and cancel the role's statements.
 * Then it VERIFIES the boundary and refuses to run anything if it does not
 * hold: dangerous role attributes, any role membership, any privilege on a
 * table/view/sequence outside tickflow_scratch and the system catalogs (e.g. a
 * `GRANT ... TO PUBLIC`), CREATE on another schema (PostgreSQL <= 14 gives
 * PUBLIC CREATE on `public`: revoked when the Tickflow user owns that schema,
 * refused otherwise), or an executable SECURITY DEFINER function.
 * After each attempt the session is reset with DISCARD ALL (session advisory
 * locks, session GUCs, temp tables do not leak into the next attempt).
 *
 * The role can change its own password and its own session defaults (`ALTER ROLE CURRENT_USER
 * PASSWORD …` / `SET …`: PostgreSQL allows it to every role, and it cannot be revoked). So each
 * attempt's transaction sets what the boundary and the other users' attempts rely on
 * (RESTRICTED_BEGIN, attemptSettingsStatement), and the role guard (guardSqlRunnerRole) resets
 * the role's settings and password through the admin pool at most SQL_ROLE_GUARD_INTERVAL_MS
 * after an attempt ran, ending the role's other sessions when it found a change
 * (docs/security.md "The sql executor's restricted role").
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
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import pg from 'pg';
import { parseIntoClientConfig } from 'pg-connection-string';
import type { Logger } from 'pino';
import { SqlSettings } from '../../lib/handlers/builtin-schemas.ts';
import { checkOut, isConnectionLost, type CheckedOut } from '../../lib/pg-checkout.ts';
import { builtinSettings, HandlerError, settings, type Handler } from './types.ts';
import { TASK_OUTPUT_CAP_BYTES } from '../output.ts';

/** Longest statement text repeated in a task log line (characters). */
const LOGGED_SQL_CHARS = 2000;

export const SQL_ROW_CAP = 1000;
/**
 * Most bytes of JSON the rows an attempt keeps may take: the task output's own cap
 * (worker/output.ts), less room for the output's other fields (`rowCount`, `truncated`), so rows
 * that fit are stored as rows, not replaced by the cap's preview.
 */
export const SQL_ROWS_BYTE_CAP = TASK_OUTPUT_CAP_BYTES - 1024;
export const SCRATCH_SCHEMA = 'tickflow_scratch';
/** settings row holding the restricted role's password (readable by the Tickflow user only). */
export const SQL_RUNNER_PASSWORD_SETTING = 'sql_runner_password';
/**
 * An attempt whose lease has less than this left (ms, by the worker's clock) when its SQL ends is
 * rolled back instead of committed: its COMMIT must reach the server before any reaper could
 * hand the task to another worker (a round trip, and the machines' clocks apart).
 */
export const SQL_COMMIT_LEASE_MARGIN_MS = 1000;

/** pg_advisory_xact_lock key serialising provisioning across workers: hashtext('tickflow.sql_runner') */
const PROVISION_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtext('tickflow.sql_runner'))`;

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

/**
 * How often, at most, the worker re-asserts the restricted role (guardSqlRunnerRole) while
 * default-connection attempts run or have ended since its last pass. PostgreSQL lets any role
 * change its own password and its own session defaults, so an operator's SQL can; the change
 * lasts at most this long (plus one round trip) after the statement that made it, as long as
 * the worker that ran it lives. An idle worker sends nothing.
 */
export const SQL_ROLE_GUARD_INTERVAL_MS = 2000;

/** The one role-level setting the restricted role is meant to have (provisioning sets it). */
const EXPECTED_ROLE_SETTINGS = `search_path=${SCRATCH_SCHEMA}`;

/** The restricted role of the default connection on database `database` (cluster-wide name, hence per database). */
export function sqlRunnerRoleName(database: string): string {
  return `tickflow_sql_${createHash('sha256').update(database).digest('hex').slice(0, 16)}`;
}

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

/** Server settings that end a dead worker's statement; see sqlLiveness. */
export interface SqlLiveness {
  /** client_connection_check_interval, ms: how often a running query checks that its client is still there */
  checkIntervalMs: number;
  /** tcp_keepalives_idle, s: silence before the server probes the worker's machine */
  keepalivesIdleS: number;
  /** tcp_keepalives_interval, s: between unanswered probes */
  keepalivesIntervalS: number;
  /** tcp_keepalives_count: unanswered probes before the connection is dead */
  keepalivesCount: number;
  /** tcp_user_timeout, ms: how long data sent to the worker may stay unacknowledged (while rows stream out, no probes are sent) */
  userTimeoutMs: number;
  /**
   * idle_in_transaction_session_timeout, ms: a stalled worker's transaction whose SQL has ended
   * (waiting for a COMMIT that would be refused, sql.ts SQL_COMMIT_LEASE_MARGIN_MS) is ended with
   * its locks after this long, instead of when the worker wakes
   */
  idleInTransactionMs: number;
}

/**
 * The liveness settings of the sql executor's attempts, from this worker's lease.
 *
 * A dead worker's lease is reclaimed no sooner than `leaseSeconds` after its last renewal, and it
 * renews every `heartbeatMs` (worker/heartbeat.ts; README "Workers, claims and leases"), so at
 * least `window = leaseSeconds·1000 − heartbeatMs` passes between the death and attempt 2 (20 s by
 * default). The backend must end within half of that (`budget`), leaving the other half as margin
 * for a busy server:
 * - a killed worker process (its socket closed by the kernel): found by the next connection check,
 *   `checkIntervalMs` = budget/10 within 100..1000 ms (a poll() on the socket, nothing sent);
 * - a vanished machine (nothing closes the socket): keepalive probes after `idle` s of silence,
 *   3 probes `interval` s apart, then the socket fails and the next check ends the query:
 *   idle + 3·interval + check ≤ budget, with interval = budget/5 and idle ≥ 1 s. Whole seconds,
 *   so never below 4 s: with leases under about 10 s only a vanished machine may outlast the budget.
 * A stalled worker (SIGSTOP, cut off) keeps its socket: its transaction, idle once its SQL has
 * ended, is ended after `idleInTransactionMs` = the budget, at least 5 s.
 * Defaults (lease 30 s, heartbeat 10 s): check every 1 s; keepalives 3 s idle, 2 s interval,
 * 3 probes (9 s); tcp_user_timeout 9 s; idle in transaction 10 s. A live worker's statement loses its connection only when
 * the network is silent for that long, which its lease (30 s) would survive: the attempt fails
 * and is retried.
 * @param leaseSeconds TICKFLOW_LEASE_SECONDS (s)
 * @param heartbeatMs TICKFLOW_HEARTBEAT_MS (ms)
 */
export function sqlLiveness(leaseSeconds: number, heartbeatMs: number): SqlLiveness {
  const windowMs = Math.max(1000, leaseSeconds * 1000 - heartbeatMs);
  const budgetMs = windowMs / 2;
  const checkIntervalMs = Math.min(1000, Math.max(100, Math.floor(budgetMs / 10)));
  const keepalivesCount = 3;
  const budgetS = Math.floor(budgetMs / 1000);
  const keepalivesIntervalS = Math.max(1, Math.floor(budgetS / 5));
  const keepalivesIdleS = Math.max(1, budgetS - keepalivesCount * keepalivesIntervalS - Math.ceil(checkIntervalMs / 1000));
  return {
    checkIntervalMs,
    keepalivesIdleS,
    keepalivesIntervalS,
    keepalivesCount,
    userTimeoutMs: (keepalivesIdleS + keepalivesCount * keepalivesIntervalS) * 1000,
    idleInTransactionMs: Math.max(SQL_MIN_IDLE_IN_TRANSACTION_MS, Math.floor(budgetMs)),
  };
}

/**
 * The shortest idle_in_transaction_session_timeout an attempt sets (ms): a live worker leaves its
 * transaction idle only between its own statements, but a loaded event loop can delay the next one.
 */
export const SQL_MIN_IDLE_IN_TRANSACTION_MS = 5000;

/**
 * `SELECT set_config(…, true), …`: the liveness settings as SET LOCAL, in one round trip.
 * Without `checkInterval` for a server that refuses it (a platform without the kernel events it
 * polls for: the value must be 0 there).
 */
export function livenessStatement(l: SqlLiveness, checkInterval = true): string {
  const settings: [string, number][] = [
    ...(checkInterval ? [['client_connection_check_interval', l.checkIntervalMs] as [string, number]] : []),
    ['tcp_keepalives_idle', l.keepalivesIdleS],
    ['tcp_keepalives_interval', l.keepalivesIntervalS],
    ['tcp_keepalives_count', l.keepalivesCount],
    ['tcp_user_timeout', l.userTimeoutMs],
    ['idle_in_transaction_session_timeout', l.idleInTransactionMs],
  ];
  return `SELECT ${settings.map(([k, v]) => `set_config('${k}', '${Math.floor(v)}', true)`).join(', ')}`;
}

/**
 * The settings each attempt's transaction sets, sent with its BEGIN and livenessStatement in one
 * round trip:
 * `statement_timeout` (the task's timeout) always; on the restricted default connection also
 * what the boundary and the other users' attempts rely on, whatever the role stored as its own
 * defaults before the role guard reset them (ALTER ROLE CURRENT_USER SET … needs no privilege):
 * `search_path`, no `lock_timeout` or (PostgreSQL 17+) `transaction_timeout` to end the attempt
 * between the worker's statements (`idle_in_transaction_session_timeout` is set on every connection
 * by livenessStatement, sent after this in the same round trip). The transaction's
 * mode comes from `BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE` (a SET LOCAL of
 * `default_transaction_read_only` would apply only to the next transaction).
 * @param timeoutMs the attempt's statement_timeout, ms (1 .. 2^31-1)
 * @param restricted true on the default connection
 */
export function attemptSettingsStatement(timeoutMs: number, restricted: boolean): string {
  const set = (k: string, v: string | number) => `set_config('${k}', '${v}', true)`;
  const parts = [set('statement_timeout', Math.max(1, Math.min(Math.floor(timeoutMs), 2 ** 31 - 1)))];
  if (restricted) {
    parts.push(
      set('search_path', SCRATCH_SCHEMA),
      set('lock_timeout', 0),
      `CASE WHEN current_setting('server_version_num')::int >= 170000 THEN ${set('transaction_timeout', 0)} END`,
    );
  }
  return `SELECT ${parts.join(', ')}`;
}

/**
 * The attempt fence's advisory lock keys for a task (two non-negative int4: 62 bits of the
 * SHA-256 of its id): every attempt of the task takes `pg_advisory_xact_lock(k1, k2)` in its
 * transaction, so two attempts of one task never run their SQL on a server at once. The two-key
 * form lives apart from the single-bigint advisory locks in pg_locks (objsubid 2).
 * @param taskId the task's id
 */
export function sqlAttemptFenceKeys(taskId: string): [number, number] {
  const digest = createHash('sha256').update(taskId).digest();
  return [digest.readUInt32BE(0) & 0x7fffffff, digest.readUInt32BE(4) & 0x7fffffff];
}

/** The attempt fence, tried with the settings: `fenced` is false while another attempt's transaction holds it. */
export function fenceStatement([k1, k2]: [number, number]): string {
  return `SELECT pg_try_advisory_xact_lock(${k1}, ${k2}) AS fenced`;
}

/**
 * Ends the backend holding a task's attempt fence (the caller tried it in vain and holds
 * nothing): an earlier attempt whose worker stalled or was cut off past its lease, whose
 * statement PostgreSQL runs on (its socket is still open, so client_connection_check_interval
 * does not end it). Its lease was reclaimed, so its outcome would be refused anyway. Params:
 * the two fence keys (sqlAttemptFenceKeys). Rows: each holder's pid and whether it was ended.
 */
export const END_FENCE_HOLDERS_SQL = `SELECT pid, pg_terminate_backend(pid) AS ended FROM pg_locks
  WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND classid = $1::bigint::oid AND objid = $2::bigint::oid AND objsubid = 2 AND granted`;

/** How the restricted connection's transactions begin (see attemptSettingsStatement). */
export const RESTRICTED_BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE';

/**
 * The SCRAM-SHA-256 verifier of the restricted role's password, as PostgreSQL stores it
 * (RFC 5802/7677: 4096 iterations; the salt derived from the password, so every worker sends the
 * same verifier and a superuser's guard can compare it with pg_authid instead of writing it).
 * Sent as the PASSWORD of ALTER ROLE, PostgreSQL stores it as it is: no hashing on the server.
 * @param password the password from the settings row (already [A-Za-z0-9_-], nothing to normalise)
 */
export function sqlRunnerVerifier(password: string): string {
  const iterations = 4096;
  const salt = createHash('sha256').update(`tickflow.sql_runner.salt:${password}`).digest().subarray(0, 16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
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

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

const USE_NAMED_CONNECTION =
  'define TICKFLOW_SQL_CONNECTIONS (JSON {"name": "postgres://restricted_user:...@host/db"}) with a role of your own that has only the privileges your SQL needs, and set `connection` on the step';

/**
 * Creates (or re-asserts) the restricted role and its scratch schema, then
 * verifies the boundary. Returns the role name and password. Throws a
 * HandlerError (code `sql_runner`) when it cannot be made safe.
 */
export async function provisionSqlRunner(admin: pg.Pool): Promise<{ role: string; password: string; superuser: boolean }> {
  const checkedOut = await checkOut(admin);
  const client = checkedOut.client;
  let broken = false;
  try {
    await client.query('BEGIN');
    await client.query(PROVISION_LOCK_SQL);
    const me = (
      await client.query<{ db: string; user: string; rolsuper: boolean; rolcreaterole: boolean }>(
        `SELECT current_database() AS db, current_user AS "user", r.rolsuper, r.rolcreaterole FROM pg_roles r WHERE r.rolname = current_user`,
      )
    ).rows[0]!;
    const role = sqlRunnerRoleName(me.db);
    const R = quoteIdent(role);
    if (!me.rolsuper && !me.rolcreaterole) {
      throw new HandlerError(
        `sql: the default connection runs SQL as the restricted role ${role}, but the Tickflow database user "${me.user}" may not create roles (no CREATEROLE; e.g. a managed database). ` +
          `Grant it CREATEROLE, or ${USE_NAMED_CONNECTION}. The default connection never falls back to Tickflow's own privileged user.`,
        { code: 'sql_runner' },
      );
    }

    // The password: generated once, shared by every worker through `settings`.
    await client.query(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, to_jsonb($2::text), now()) ON CONFLICT (key) DO NOTHING`,
      [SQL_RUNNER_PASSWORD_SETTING, randomBytes(24).toString('base64url')],
    );
    const stored = (await client.query<{ value: unknown }>(`SELECT value FROM settings WHERE key = $1`, [SQL_RUNNER_PASSWORD_SETTING])).rows[0]?.value;
    if (typeof stored !== 'string' || !/^[A-Za-z0-9_-]{16,}$/.test(stored)) {
      throw new HandlerError(`sql: settings.${SQL_RUNNER_PASSWORD_SETTING} is malformed; delete that row to regenerate it`, { code: 'sql_runner' });
    }
    const password = stored; // [A-Za-z0-9_-] only: safe inside a literal

    const exists = (await client.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [role])).rowCount! > 0;
    const superOnly = me.rolsuper ? ' NOSUPERUSER NOREPLICATION NOBYPASSRLS' : '';
    await client.query(
      `${exists ? 'ALTER' : 'CREATE'} ROLE ${R} WITH LOGIN${superOnly} NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD '${sqlRunnerVerifier(password)}'`,
    );
    if (!me.rolsuper) {
      // Membership of the Tickflow user IN the restricted role (not the reverse): needed to hand the
      // schema over (ALTER ... OWNER) and to cancel the role's statements.
      const member = await client.query(`SELECT pg_has_role(current_user, $1, 'MEMBER') AS m`, [role]);
      if (!member.rows[0]?.m) await client.query(`GRANT ${R} TO CURRENT_USER`);
    }
    // Whatever the role stored as its own session defaults (ALTER ROLE CURRENT_USER [IN DATABASE …]
    // SET …, which needs no privilege), in any database: gone; then the one it is meant to have.
    await resetRoleSettings(client, role);
    const canConnect = await client.query(`SELECT has_database_privilege($1, current_database(), 'CONNECT') AS ok`, [role]);
    if (!canConnect.rows[0]?.ok) await client.query(`GRANT CONNECT ON DATABASE ${quoteIdent(me.db)} TO ${R}`);

    // The scratch schema: created for, or handed over to, the restricted role with what it holds.
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCRATCH_SCHEMA} AUTHORIZATION ${R}`);
    await client.query(`ALTER SCHEMA ${SCRATCH_SCHEMA} OWNER TO ${R}`);
    const foreign = await client.query<{ kind: string; name: string; args: string | null }>(
      `SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE'
                             WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'c' THEN 'TYPE' ELSE 'TABLE' END AS kind,
              quote_ident(c.relname) AS name, NULL AS args
         FROM pg_class c
        WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f', 'c')
          AND c.relowner <> $2::regrole
          AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                                                 AND d.objid = c.oid AND d.deptype IN ('a', 'i')))
       UNION ALL
       SELECT 'ROUTINE', quote_ident(p.proname), pg_get_function_identity_arguments(p.oid)
         FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.proowner <> $2::regrole
       UNION ALL
       SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, quote_ident(t.typname), NULL
         FROM pg_type t
        WHERE t.typnamespace = $1::regnamespace AND t.typowner <> $2::regrole AND t.typtype IN ('e', 'd', 'r')`,
      [SCRATCH_SCHEMA, role],
    );
    for (const o of foreign.rows) {
      await client.query(`ALTER ${o.kind} ${SCRATCH_SCHEMA}.${o.name}${o.args !== null ? `(${o.args})` : ''} OWNER TO ${R}`);
    }

    // PostgreSQL <= 14 lets PUBLIC create in schema public: close it when we own it, else refuse below.
    const canCreatePublic = await client.query(
      `SELECT has_schema_privilege($1, n.oid, 'CREATE') AND (pg_has_role(current_user, n.nspowner, 'USAGE') OR $2::boolean) AS fix
         FROM pg_namespace n WHERE n.nspname = 'public'`,
      [role, me.rolsuper],
    );
    if (canCreatePublic.rows[0]?.fix) await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);

    const problems = await verifyBoundary(client, role);
    if (problems.length > 0) {
      throw new HandlerError(
        `sql: refusing to run SQL on the default connection: the restricted role ${role} is not isolated from Tickflow's data (${problems.join('; ')}). ` +
          `Fix these grants, or ${USE_NAMED_CONNECTION}.`,
        { code: 'sql_runner' },
      );
    }
    await client.query('COMMIT');
    return { role, password, superuser: me.rolsuper };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    if (err instanceof HandlerError) throw err;
    const e = err as { message?: string; code?: string };
    throw new HandlerError(
      `sql: could not set up the restricted role of the default connection (${e.code ?? 'error'}: ${e.message ?? String(err)}); ${USE_NAMED_CONNECTION}`,
      { code: 'sql_runner' },
    );
  } finally {
    checkedOut.release(broken);
  }
}

/**
 * Removes every role-level setting of `role` (in every database: pg_db_role_setting), then sets
 * the one it is meant to have (search_path = tickflow_scratch).
 */
async function resetRoleSettings(client: pg.ClientBase | pg.Pool, role: string): Promise<void> {
  const R = quoteIdent(role);
  const rows = await client.query<{ db: string | null }>(
    `SELECT d.datname AS db FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase
      WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1) ORDER BY 1 NULLS FIRST`,
    [role],
  );
  for (const { db } of rows.rows) {
    await client.query(db === null ? `ALTER ROLE ${R} RESET ALL` : `ALTER ROLE ${R} IN DATABASE ${quoteIdent(db)} RESET ALL`);
  }
  await client.query(`ALTER ROLE ${R} SET search_path = ${SCRATCH_SCHEMA}`);
}

/** What the restricted role could do beyond its scratch schema; empty when the boundary holds. */
async function verifyBoundary(client: pg.PoolClient, role: string): Promise<string[]> {
  const out: string[] = [];
  const attrs = (
    await client.query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean; rolreplication: boolean; rolbypassrls: boolean; memberOf: string[] }>(
      `SELECT r.rolsuper, r.rolcreatedb, r.rolcreaterole, r.rolreplication, r.rolbypassrls,
              ARRAY(SELECT g.rolname::text FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE m.member = r.oid) AS "memberOf"
         FROM pg_roles r WHERE r.rolname = $1`,
      [role],
    )
  ).rows[0];
  if (!attrs) return [`role ${role} does not exist`];
  for (const a of ['rolsuper', 'rolcreatedb', 'rolcreaterole', 'rolreplication', 'rolbypassrls'] as const) {
    if (attrs[a]) out.push(`it has ${a.slice(3).toUpperCase()}`);
  }
  if (attrs.memberOf.length) out.push(`it is a member of ${attrs.memberOf.join(', ')}`);
  const stored = await client.query<{ db: string | null; config: string[] }>(
    `SELECT d.datname AS db, s.setconfig AS config FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase
      WHERE s.setrole = (SELECT oid FROM pg_roles WHERE rolname = $1)`,
    [role],
  );
  const unexpected = stored.rows.flatMap((r) => (r.config ?? []).filter((c) => r.db !== null || c !== EXPECTED_ROLE_SETTINGS).map((c) => (r.db === null ? c : `${c} in database ${r.db}`)));
  if (unexpected.length) out.push(`it has role settings ${unexpected.join(', ')} (ALTER ROLE ... RESET ALL)`);
  const rels = await client.query<{ name: string }>(
    `SELECT format('%I.%I', n.nspname, c.relname) AS name
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema', $2) AND n.nspname NOT LIKE 'pg\\_%'
        AND (has_table_privilege($1, c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
             OR has_any_column_privilege($1, c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))
      ORDER BY 1 LIMIT 20`,
    [role, SCRATCH_SCHEMA],
  );
  if (rels.rowCount) out.push(`it has privileges on ${rels.rows.map((r) => r.name).join(', ')}`);
  const schemas = await client.query<{ name: string }>(
    `SELECT n.nspname AS name FROM pg_namespace n
      WHERE n.nspname <> $2 AND n.nspname NOT LIKE 'pg\\_%' AND has_schema_privilege($1, n.oid, 'CREATE') ORDER BY 1`,
    [role, SCRATCH_SCHEMA],
  );
  if (schemas.rowCount) out.push(`it may CREATE in schema ${schemas.rows.map((r) => r.name).join(', ')} (REVOKE CREATE ON SCHEMA ... FROM PUBLIC)`);
  const definers = await client.query<{ name: string }>(
    `SELECT p.oid::regprocedure::text AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE p.prosecdef AND n.nspname NOT IN ('pg_catalog', 'information_schema', $2)
        AND has_function_privilege($1, p.oid, 'EXECUTE') ORDER BY 1 LIMIT 20`,
    [role, SCRATCH_SCHEMA],
  );
  if (definers.rowCount) out.push(`it may execute SECURITY DEFINER functions ${definers.rows.map((r) => r.name).join(', ')}`);
  return out;
}

/** What one pass of guardSqlRunnerRole found and did. */
export interface RoleGuardResult {
  /** role-level settings other than its search_path were found, and removed */
  settingsReset: boolean;
  /** the password was found changed and set back; null: not comparable (not a superuser), set back anyway */
  passwordChanged: boolean | null;
  /** sessions of the role terminated (only when a change was found, or the pass was `suspect`) */
  terminated: number;
}

/**
 * One pass of the restricted role's guard, through Tickflow's own (admin) pool. PostgreSQL lets
 * any role change its own password and its own session defaults (neither can be revoked), so an
 * operator's `sql` step can, however the text is spelled (EXECUTE builds it at run time). The pass:
 * - removes role-level settings other than `search_path = tickflow_scratch`, in any database;
 * - sets the password back to the worker's (`verifier`, sqlRunnerVerifier). A superuser compares
 *   it with pg_authid first and writes only a changed one; any other Tickflow user (CREATEROLE)
 *   cannot read pg_authid and writes it on every pass (one pg_authid row update);
 * - when a change was found (or `suspect`: a worker's login was refused), terminates every session
 *   of the role but this worker's own (`keepPids`): a session opened with a changed password, or
 *   one that started with changed defaults. Other workers' attempts then fail as on any lost
 *   connection and are retried per their policy — nothing the role could not do itself
 *   (pg_terminate_backend of its own sessions needs no privilege).
 * Cost of a pass with nothing to repair: one read (a superuser), or one read and one ALTER ROLE.
 * @throws Error when the role does not exist (provision again), or a statement fails (e.g.
 *   "tuple concurrently updated" when another worker's pass wrote the row at the same moment)
 */
export async function guardSqlRunnerRole(
  admin: pg.Pool,
  opts: { role: string; verifier: string; superuser: boolean; keepPids: readonly number[]; suspect?: boolean },
): Promise<RoleGuardResult> {
  const { role, verifier, superuser } = opts;
  const probe = (
    await admin.query<{ settings: { db: string | null; config: string[] }[]; password_ok: boolean | null }>(
      `SELECT (SELECT coalesce(json_agg(json_build_object('db', d.datname, 'config', s.setconfig)), '[]'::json)
                 FROM pg_db_role_setting s LEFT JOIN pg_database d ON d.oid = s.setdatabase WHERE s.setrole = r.oid) AS settings,
              ${superuser ? '(SELECT a.rolpassword = $2 FROM pg_authid a WHERE a.oid = r.oid)' : 'NULL::boolean'} AS password_ok
         FROM pg_roles r WHERE r.rolname = $1`,
      superuser ? [role, verifier] : [role],
    )
  ).rows[0];
  if (!probe) throw new Error(`role ${role} does not exist`);
  const [only, ...more] = probe.settings;
  const settingsOk = !more.length && only?.db === null && only.config.length === 1 && only.config[0] === EXPECTED_ROLE_SETTINGS;
  if (!settingsOk) await resetRoleSettings(admin, role);
  if (probe.password_ok !== true) await admin.query(`ALTER ROLE ${quoteIdent(role)} PASSWORD '${verifier}'`);
  let terminated = 0;
  if (!settingsOk || probe.password_ok === false || opts.suspect) {
    const r = await admin.query<{ n: number }>(
      `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE usename = $1 AND pid <> ALL($2::int[])`,
      [role, [...opts.keepPids]],
    );
    terminated = r.rows[0]?.n ?? 0;
  }
  return { settingsReset: !settingsOk, passwordChanged: probe.password_ok === null ? null : !probe.password_ok, terminated };
}

/** Connection settings of `url` with another user/password (host, port, database, TLS, options kept). */
function asUser(url: string, user: string, password: string): pg.PoolConfig {
  const cfg = parseIntoClientConfig(url) as pg.PoolConfig;
  return { ...cfg, user, password };
}

/** What runCapped keeps of a text's last statement. */
export type CappedResult = {
  command: string | null;
  /** the statement's own count (CommandComplete): rows returned or changed, kept or not */
  rowCount: number;
  rows: unknown[];
  /** set when rows were dropped: how many the statement returned */
  truncated?: { received: number };
};

/**
 * Runs `text` (one statement with `values`, or several without) on `client` and keeps the last
 * statement's rows up to `maxRows` and `maxBytes` of their JSON. node-postgres accumulates every
 * row of a result before it answers; a query with a `row` listener and no callback does not
 * (pg/lib/query.js `_accumulateRows`), so rows past the caps are parsed and dropped one by one.
 * @throws the statement's error, as client.query does
 */
export function runCapped(client: pg.ClientBase, text: string, values: unknown[], maxRows = SQL_ROW_CAP, maxBytes = SQL_ROWS_BYTE_CAP): Promise<CappedResult> {
  return new Promise((resolve, reject) => {
    const query = new pg.Query({ text, values });
    let current: unknown = null;
    let kept: unknown[] = [];
    let keptBytes = 0;
    let received = 0;
    let full = false;
    query.on('row', (row: unknown, result: unknown) => {
      if (result !== current) {
        // the next statement of a multi-statement text: only the last one's rows are reported
        current = result;
        kept = [];
        keptBytes = 0;
        received = 0;
        full = false;
      }
      received++;
      if (full) return;
      const bytes = Buffer.byteLength(JSON.stringify(row) ?? 'null') + 1;
      if (kept.length >= maxRows || keptBytes + bytes > maxBytes) {
        full = true;
        return;
      }
      kept.push(row);
      keptBytes += bytes;
    });
    query.on('error', reject);
    query.on('end', (results: pg.QueryResult | pg.QueryResult[]) => {
      const last = (Array.isArray(results) ? results[results.length - 1] : results) as pg.QueryResult | undefined;
      const own = last !== undefined && last === current;
      const rows = own ? kept : [];
      resolve({
        command: last?.command ?? null,
        rowCount: last?.rowCount ?? (own ? received : 0),
        rows,
        ...(own && received > rows.length ? { truncated: { received } } : {}),
      });
    });
    void client.query(query);
  });
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
