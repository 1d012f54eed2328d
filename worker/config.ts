/**
 * Worker configuration from the environment (README "Worker"):
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | DATABASE_URL | (required) | Tickflow's PostgreSQL |
 * | TICKFLOW_CONCURRENCY | 8 | tasks run at once by this process |
 * | TICKFLOW_NODE_GROUP | default | routing group this node serves |
 * | TICKFLOW_NODE_LABELS | (none) | `k=v,k2=v2` routing labels |
 * | TICKFLOW_NODE_NAME | hostname | display name |
 * | TICKFLOW_LEASE_SECONDS | 30 | lease on a claimed task; extended by heartbeat |
 * | TICKFLOW_POLL_MS | 10000 | claim safety poll (NOTIFY and known due times wake earlier) |
 * | TICKFLOW_TICK_MS | 10000 | longest sleep between ticks (NOTIFY and the next due job wake earlier) |
 * | TICKFLOW_LOOKAHEAD_MS | 3000 | runs of slots due within this are created ahead (docs/on-time.md) |
 * | TICKFLOW_CLAIM_AHEAD_MS | 500 | tasks due within this are claimed ahead and held until their start (0..10000; docs/on-time.md "Claiming ahead") |
 * | TICKFLOW_PREFETCH_MULTIPLIER | 4 | tasks per free slot a claim may take while no backlog is known; those beyond the free slots wait for their start and a free slot (1 = none beyond; 1..100; docs/on-time.md "Prefetch") |
 * | TICKFLOW_TICK_BATCH | 100 | due jobs locked per tick transaction |
 * | TICKFLOW_MISFIRE_GRACE_MS | 60000 | a slot later than this is a misfire |
 * | TICKFLOW_HEARTBEAT_MS | lease/3 | node heartbeat + lease extension interval |
 * | TICKFLOW_REAP_MS | 10000 | lease reclaim and offline-node scan interval |
 * | TICKFLOW_NODE_OFFLINE_SECONDS | 60 | heartbeat age after which a node is offline |
 * | TICKFLOW_SHUTDOWN_GRACE_MS | 30000 | how long SIGTERM waits for running tasks |
 * | TICKFLOW_ALLOW_SHELL | off | `1`/`true` enables the shell executor |
 * | TICKFLOW_SHELL_KILL_GRACE_MS | 5000 | SIGTERM -> SIGKILL grace for shell tasks |
 * | TICKFLOW_SQL_CONNECTIONS | {} | JSON `{name: url}` for the sql executor |
 * | TICKFLOW_ROLES | tick,claim,reap | services this process runs |
 * | TICKFLOW_HANDLERS | (none) | handler modules to load: files/folders, comma-separated (docs/handlers.md) |
 * | TICKFLOW_LISTEN_DATABASE_URL | DATABASE_URL | direct connection for LISTEN when DATABASE_URL is a transaction-mode pooler |
 * | TICKFLOW_METRICS_PORT | (off) | serve Prometheus metrics on this port (docs/metrics.md) |
 * | TICKFLOW_METRICS_HOST | 127.0.0.1 | address the metrics server binds |
 * | TICKFLOW_TASK_LOG_FLUSH_MS, …_MAX_LINES, …_MAX_BYTES, …_MAX_LINE_BYTES, …_MAX_BUFFERED_LINES | 200, 10000, 2 MiB, 8 KiB, 100000 | task log lines (docs/task-logs.md) |
 */
import { hostname } from 'node:os';
import { dbQueryTimeoutFromEnv } from '../lib/db-timeouts.ts';
import { parseHandlerModulesEnv } from './handlers/module-loader.ts';
import { parseSqlConnections } from './handlers/sql.ts';
import { taskLogConfigFromEnv, type TaskLogWriterConfig } from './task-log-writer.ts';
import { workerSecretsFromEnv } from './task-secrets.ts';
import { ConfigError, envInt } from '../lib/infra/env-int.ts';
import { alarmSettings } from '../lib/alarms/config.ts';
import { checkOutboundAllowSetting } from '../lib/net/outbound.ts';

export { ConfigError };

export type WorkerRole = 'tick' | 'claim' | 'reap';

export interface WorkerConfig {
  databaseUrl: string;
  concurrency: number;
  group: string;
  labels: Record<string, string>;
  name: string;
  leaseSeconds: number;
  pollMs: number;
  tickMs: number;
  lookaheadMs: number;
  /** tasks due within this many ms are claimed ahead and held until their start (docs/on-time.md "Claiming ahead"; 0 = off) */
  claimAheadMs: number;
  /** tasks per free slot a claim may take while no backlog is known (worker/claimer.ts; docs/on-time.md "Prefetch") */
  prefetchMultiplier: number;
  tickBatch: number;
  misfireGraceMs: number;
  heartbeatMs: number;
  reapMs: number;
  /** alarm scan + delivery interval (TICKFLOW_ALARM_DISPATCH_MS, default 15000) */
  alarmDispatchMs?: number;
  /** alarms claimed and delivered at once per pass (TICKFLOW_ALARM_BATCH, default 20) */
  alarmBatch?: number;
  nodeOfflineSeconds: number;
  shutdownGraceMs: number;
  allowShell: boolean;
  shellKillGraceMs: number;
  sqlConnections: Record<string, string>;
  /** secrets by name, for references in task settings (worker/task-secrets.ts: TICKFLOW_SECRET_*, TICKFLOW_SECRETS_DIR); none when absent */
  secrets?: ReadonlyMap<string, string>;
  roles: WorkerRole[];
  dbPoolSize: number;
  /**
   * TICKFLOW_DB_QUERY_TIMEOUT_MS (lib/db-timeouts.ts): ms a statement of the worker's own pools may
   * take, 0 for none; default: read from the environment when the pools are made
   */
  dbQueryTimeoutMs?: number;
  /** TICKFLOW_HANDLERS entries (files or folders of handler modules), as given */
  handlerModules?: string[];
  /** direct (unpooled) URL for LISTEN; default databaseUrl (docs/operations.md "Connection poolers") */
  listenDatabaseUrl?: string;
  /** GET /metrics on this port (docs/metrics.md); undefined: no metrics server */
  metricsPort?: number;
  /** address the metrics server binds (default 127.0.0.1) */
  metricsHost?: string;
  /** task log lines: flush cadence and per-attempt limits (worker/task-log-writer.ts; defaults when absent) */
  taskLog?: Partial<TaskLogWriterConfig>;
}

/**
 * Parses `k=v,k2=v2` (whitespace trimmed; empty -> {}). Throws ConfigError on an entry without
 * `=`, a key given twice (one value would be lost) and the key `__proto__` (a plain object drops it;
 * the console and the API refuse it too, lib/api/json-guard.ts).
 */
export function parseLabels(raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw || !raw.trim()) return out;
  for (const part of raw.split(',')) {
    const entry = part.trim();
    if (!entry) continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new ConfigError(`TICKFLOW_NODE_LABELS: "${entry}" is not k=v (expected e.g. "region=eu,gpu=true")`);
    const key = entry.slice(0, eq).trim();
    if (key === '__proto__') throw new ConfigError('TICKFLOW_NODE_LABELS: the label key __proto__ is not allowed');
    if (Object.hasOwn(out, key)) throw new ConfigError(`TICKFLOW_NODE_LABELS: label ${key} is given twice`);
    out[key] = entry.slice(eq + 1).trim();
  }
  return out;
}

const int = envInt;

function bool(env: NodeJS.ProcessEnv, name: string): boolean {
  return ['1', 'true', 'yes', 'on'].includes((env[name] ?? '').trim().toLowerCase());
}

/** Reads the worker's configuration; throws ConfigError with the variable's name on bad input. */
export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) {
    // The usual first extra worker joins the embedded database of this checkout's `npm start`, whose URL
    // (with its generated password) only that file holds: name it, in the data directory given here.
    const dataDir = env.TICKFLOW_DATA_DIR?.trim().replace(/\/+$/, '') || '.tickflow';
    throw new ConfigError(
      `DATABASE_URL is required (postgres://user:pass@host:5432/tickflow); to join the embedded database of this checkout's \`npm start\`: DATABASE_URL=$(cat ${dataDir}/database-url) npm run worker`,
    );
  }
  const leaseSeconds = int(env, 'TICKFLOW_LEASE_SECONDS', 30, 1, 86_400);
  const concurrency = int(env, 'TICKFLOW_CONCURRENCY', 8, 1, 10_000);
  const roles = (env.TICKFLOW_ROLES ?? 'tick,claim,reap')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles) {
    if (!['tick', 'claim', 'reap'].includes(r)) throw new ConfigError(`TICKFLOW_ROLES: unknown role "${r}" (tick, claim, reap)`);
  }
  let sqlConnections: Record<string, string>;
  try {
    sqlConnections = parseSqlConnections(env.TICKFLOW_SQL_CONNECTIONS);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  let dbQueryTimeoutMs: number;
  try {
    dbQueryTimeoutMs = dbQueryTimeoutFromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  // the alarm settings the dispatcher reads at each pass (lib/alarms/config.ts): a malformed one stops the start here
  alarmSettings(env);
  checkOutboundAllowSetting(env);
  let taskLog: TaskLogWriterConfig;
  try {
    taskLog = taskLogConfigFromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  let secrets: ReadonlyMap<string, string>;
  try {
    secrets = workerSecretsFromEnv(env);
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return {
    databaseUrl,
    concurrency,
    group: (env.TICKFLOW_NODE_GROUP ?? '').trim() || 'default',
    labels: parseLabels(env.TICKFLOW_NODE_LABELS),
    name: (env.TICKFLOW_NODE_NAME ?? '').trim() || hostname(),
    leaseSeconds,
    pollMs: int(env, 'TICKFLOW_POLL_MS', 10_000, 10),
    tickMs: int(env, 'TICKFLOW_TICK_MS', 10_000, 10),
    lookaheadMs: int(env, 'TICKFLOW_LOOKAHEAD_MS', 3000, 0, 60_000),
    claimAheadMs: int(env, 'TICKFLOW_CLAIM_AHEAD_MS', 500, 0, 10_000),
    prefetchMultiplier: int(env, 'TICKFLOW_PREFETCH_MULTIPLIER', 4, 1, 100),
    tickBatch: int(env, 'TICKFLOW_TICK_BATCH', 100, 1, 10_000),
    misfireGraceMs: int(env, 'TICKFLOW_MISFIRE_GRACE_MS', 60_000, 0),
    heartbeatMs: int(env, 'TICKFLOW_HEARTBEAT_MS', Math.max(100, Math.floor((leaseSeconds * 1000) / 3)), 10),
    reapMs: int(env, 'TICKFLOW_REAP_MS', 10_000, 10),
    alarmDispatchMs: int(env, 'TICKFLOW_ALARM_DISPATCH_MS', 15_000, 10),
    alarmBatch: int(env, 'TICKFLOW_ALARM_BATCH', 20, 1, 10_000),
    nodeOfflineSeconds: int(env, 'TICKFLOW_NODE_OFFLINE_SECONDS', 60, 1),
    shutdownGraceMs: int(env, 'TICKFLOW_SHUTDOWN_GRACE_MS', 30_000, 0),
    allowShell: bool(env, 'TICKFLOW_ALLOW_SHELL'),
    shellKillGraceMs: int(env, 'TICKFLOW_SHELL_KILL_GRACE_MS', 5000, 0),
    sqlConnections,
    secrets,
    roles: roles as WorkerRole[],
    handlerModules: parseHandlerModulesEnv(env.TICKFLOW_HANDLERS),
    // claimer + ticker + completions + system jobs: leave room for concurrency (heartbeat and
    // reaper have their own liveness pool, create-worker.ts LIVENESS_POOL_SIZE).
    dbPoolSize: int(env, 'TICKFLOW_DB_POOL', Math.min(20, Math.max(4, Math.ceil(concurrency / 2) + 4)), 2, 200),
    dbQueryTimeoutMs,
    listenDatabaseUrl: env.TICKFLOW_LISTEN_DATABASE_URL?.trim() || undefined,
    metricsPort: env.TICKFLOW_METRICS_PORT?.trim() ? int(env, 'TICKFLOW_METRICS_PORT', 0, 1, 65_535) : undefined,
    metricsHost: (env.TICKFLOW_METRICS_HOST ?? '').trim() || '127.0.0.1',
    taskLog,
  };
}
