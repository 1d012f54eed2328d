/**
 * What each attempt of the `sql` executor sets in its own transaction (worker/handlers/sql.ts):
 * the liveness settings that end a dead worker's statement, the task's timeout and the restricted
 * role's settings, and the attempt fence that keeps two attempts of one task apart.
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
 */
import { createHash } from 'node:crypto';
import { SCRATCH_SCHEMA } from './sql-restricted-role.ts';

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
