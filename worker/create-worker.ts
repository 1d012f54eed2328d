/**
 * createWorker: assembles one worker process's services (docs/design.md §2 worker/):
 *
 * - node registry: a new random node id per process (lib/engine/nodes);
 * - heartbeat.ts: node heartbeat + lease extension for running attempts;
 * - ticker.ts:    fires due jobs (lib/engine/tick);
 * - claimer.ts:   batch claims up to free slots; woken by listener.ts (LISTEN) + poll;
 * - runner.ts:    executes attempts with AbortSignal and enforced timeouts;
 * - reaper.ts:    reclaims expired leases, marks silent nodes offline, settles stranded runs;
 * - alarm-dispatcher.ts: raises/delivers alarms (runs with the reaper, role `reap`).
 * System-job handlers (worker/handlers/system-handlers.ts) are registered on the worker's own client.
 *
 * Three connection pools: the hot-path pool (HOT_POOL_SIZE, node-postgres without
 * Prisma, lib/sql-pool.ts) for claims and completions; the main one (ticks, alarms,
 * system jobs, everything else; TICKFLOW_DB_POOL); and a small liveness pool
 * (LIVENESS_POOL_SIZE) for the heartbeat, lease renewal, the reaper and the
 * reachability probe, so a worker whose main pool is exhausted by long work is
 * not declared dead.
 * DbHealth (db-health.ts) watches reachability: after an outage it renews
 * leases first, then resumes every loop at once (docs/engine.md "Outages").
 *
 * Tests build workers in-process with an injected clock and call each
 * service's runOnce(now) directly, or start() the loops. The CLI is worker/index.ts.
 *
 * Shutdown (stop): stop claiming and ticking, mark the node `draining`, wait
 * for running attempts up to the grace period, then abort what is left
 * (completed as failed -> retried per policy), mark the node `stopped` with the
 * time and the signal (docs/operations.md "Stopped or offline"). kill() and a
 * second signal leave the row as it is: the reaper then marks it `offline`.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { createPrismaClient, type PrismaClient } from '../lib/db.ts';
import { createSqlPool, HOT_PATH_SETTINGS, type SqlPool } from '../lib/sql-pool.ts';
import { dbQueryTimeoutFromEnv } from '../lib/db-timeouts.ts';
import { serviceLogger } from '../lib/log.ts';
import { markNodeStopped, registerNode, setNodeStatus, type NodeStatus } from '../lib/engine/nodes/index.ts';
import { AlarmDispatcher, alarmDispatcherConfig } from './alarm-dispatcher.ts';
import { Claimer } from './claimer.ts';
import type { WorkerConfig, WorkerRole } from './config.ts';
import { createHandlerRegistry, type Handler, type HandlerRegistry } from './handlers/index.ts';
import type { HandlerSpec } from './handlers/function-executor.ts';
import { createSystemHandlers } from './handlers/system-handlers.ts';
import { DbHealth } from './db-health.ts';
import { Heartbeat } from './heartbeat.ts';
import { Listener } from './listener.ts';
import { Reaper } from './reaper.ts';
import { Runner } from './runner.ts';
import { createShellGuardian } from './handlers/shell-guardian.ts';
import { shellDeadlineMs } from './shell-deadline.ts';
import { Ticker } from './ticker.ts';
import type { ClaimedTask } from '../lib/engine/types.ts';
import { UUID_RE } from '../lib/engine/pg.ts';
import { withdrawMissedAheadRuns } from '../lib/engine/cancel-ahead-runs.ts';
import type { WorkerMetrics } from '../lib/metrics/metrics.ts';
import { DEFAULT_TASK_LOG_CONFIG, TaskLogWriter } from './task-log-writer.ts';

export const WORKER_VERSION = '0.1.0';

/** Connections of the liveness pool: heartbeat, reaper, reachability probe. */
export const LIVENESS_POOL_SIZE = 3;

/**
 * Connections of the hot-path pool: one claim and up to two completion batches in flight
 * (completion-batcher.ts), plus one for the rest, which is short and rare beside them — a
 * failure's transaction, a DAG batch's settling transaction, the run starter's statement
 * (run-starter.ts), the next-due probe; more queue for a connection.
 */
export const HOT_POOL_SIZE = 4;

/**
 * How long a statement of the main pool waits for a free connection, or a new one (ms). The main
 * pool carries long work (system jobs, whose transactions may take Prisma's 30 s plus its 10 s
 * wait, lib/db.ts inTransaction), so waiting out one such transaction is normal there, not a sign
 * of an outage; a silent database is noticed by the liveness pool, whose bounds are the default
 * ones (lib/db-timeouts.ts DB_CONNECT_TIMEOUT_MS), and DbHealth then pauses every loop.
 */
export const MAIN_POOL_WAIT_MS = 60_000;

/**
 * The least query timeout of the main pool (ms). The system jobs run on it, and on a large
 * installation some of their statements rightly take minutes: the stats check recomputes two days
 * of runs (docs/operations.md "History at scale": 2.4 s per day of 111,000 runs, so over a minute
 * at the millions of runs a day a busy scheduler writes). A silent database is still noticed
 * within the setting, by the liveness pool; this bound only ends a statement that never returns.
 */
export const MAIN_POOL_MIN_QUERY_TIMEOUT_MS = 600_000;

/** The task log connection's session settings (its pool is created with createSqlPool). */
export const TASK_LOG_SESSION_SETTINGS: Readonly<Record<string, string>> = { work_mem: '64MB' };

export interface CreateWorkerOptions {
  config: WorkerConfig;
  /** a Prisma client to use (not closed on stop); default: a new one on config.databaseUrl */
  db?: PrismaClient;
  /** clock for every database timestamp the worker writes (default: real time) */
  clock?: () => Date;
  logger?: Logger;
  /** extra handlers (tests, embedding applications, handler modules) */
  handlers?: Record<string, Handler>;
  /** what the worker advertises about its handlers (description, input JSON Schema; function-executor.ts) */
  handlerSpecs?: Record<string, HandlerSpec>;
  /** restrict the advertised/claimed handler names (default: all registered) */
  handlerNames?: string[];
  /** Prometheus counters this worker feeds (lib/metrics; served by worker/metrics-server.ts) */
  metrics?: WorkerMetrics;
}

export type WorkerState = 'created' | 'running' | 'draining' | 'stopped';

export interface Worker {
  readonly nodeId: string;
  readonly config: WorkerConfig;
  readonly state: WorkerState;
  readonly db: PrismaClient;
  readonly handlers: HandlerRegistry;
  readonly runner: Runner;
  /** stores handlers' task log lines */
  readonly taskLogs: TaskLogWriter;
  readonly claimer: Claimer;
  readonly ticker: Ticker;
  readonly reaper: Reaper;
  readonly heartbeat: Heartbeat;
  /** database reachability as this worker sees it */
  readonly health: DbHealth;
  /** the small pool of the heartbeat, lease renewal and reaper */
  readonly livenessDb: PrismaClient;
  /** the claims' and completions' connections */
  readonly hotDb: SqlPool;
  /** registers the node (if not yet) and starts the service loops for the configured roles */
  start(): Promise<void>;
  /** registers the node without starting loops (tests driving runOnce themselves) */
  register(): Promise<string>;
  /**
   * graceful stop; resolves when the node is marked `stopped`. `graceMs` defaults to
   * config.shutdownGraceMs; `signal` (SIGTERM, SIGINT, …) is recorded as the node's stop_signal.
   */
  stop(options?: { graceMs?: number; signal?: string }): Promise<{ drained: boolean; aborted: number }>;
  /** immediate stop: aborts attempts, does not wait */
  kill(): Promise<void>;
  /**
   * A stop that cannot wait (a second signal): stops claiming, hands back every task claimed
   * and not started (Runner.handBackAll: pending again, same attempt), and waits up to
   * `timeoutMs` in all; running attempts are left to their leases. The caller exits right after.
   */
  handBackNow(timeoutMs?: number): Promise<void>;
}

export function createWorker(options: CreateWorkerOptions): Worker {
  const config = options.config;
  const clock = options.clock ?? (() => new Date());
  const ownsDb = !options.db;
  // Every pool of the worker's own statements is bounded (lib/db-timeouts.ts): without it a database
  // that stops answering without closing its connections (a hung server, a partition) would hang the
  // heartbeat, the claims and the completions for good, and DbHealth's probe with them, instead of
  // reporting the outage. Not the `sql` handler's pools: their attempts have their own timeout.
  const queryTimeoutMs = config.dbQueryTimeoutMs ?? dbQueryTimeoutFromEnv();
  const mainQueryTimeoutMs = queryTimeoutMs === 0 ? 0 : Math.max(queryTimeoutMs, MAIN_POOL_MIN_QUERY_TIMEOUT_MS);
  const db = options.db ?? createPrismaClient(config.databaseUrl, config.dbPoolSize, { queryTimeoutMs: mainQueryTimeoutMs, connectTimeoutMs: MAIN_POOL_WAIT_MS });
  const base = options.logger ?? serviceLogger('worker');
  // This worker's own guardian, so that its deadline follows this worker's leases (several
  // workers may share a process in tests and embeddings).
  const guardian = config.allowShell ? createShellGuardian() : undefined;
  const registry = createHandlerRegistry({
    allowShell: config.allowShell,
    shellGuardian: guardian,
    shellKillGraceMs: config.shellKillGraceMs,
    taskLogMaxLineBytes: config.taskLog?.maxLineBytes,
    databaseUrl: config.databaseUrl,
    sqlConnections: config.sqlConnections,
    lease: { leaseSeconds: config.leaseSeconds, heartbeatMs: config.heartbeatMs },
    logger: base.child({ component: 'sql' }),
    // System jobs (retention, cleanups, stats check) on this worker's own client.
    extra: { ...createSystemHandlers(() => db), ...options.handlers },
  });
  // A disabled handler (shell without TICKFLOW_ALLOW_SHELL) is neither advertised nor claimed
  // while another live worker offers it: a mixed fleet routes shell tasks to the workers that
  // may run them, and a fleet with none fails them with the reason.
  const fallbackHandlers = options.handlerNames ? [] : registry.disabled();
  const handlerNames = options.handlerNames ?? registry.names().filter((n) => !fallbackHandlers.includes(n));
  const host = hostname();
  const livenessDb = createPrismaClient(config.databaseUrl, LIVENESS_POOL_SIZE, { queryTimeoutMs });
  const hotDb = createSqlPool(config.databaseUrl, HOT_POOL_SIZE, { settings: HOT_PATH_SETTINGS, queryTimeoutMs });

  let nodeId = '';
  let state: WorkerState = 'created';
  let registered: Promise<string> | null = null;
  let logger = base;
  const roles = new Set<WorkerRole>(config.roles);
  // The runner and the log writer read their logger per attempt: a pino child costs more than a
  // no-op task, so each component's child is made once per node logger (it changes at registration).
  const components = new Map<string, { base: Logger; child: Logger }>();
  const componentLogger = (component: string): Logger => {
    let c = components.get(component);
    if (!c || c.base !== logger) components.set(component, (c = { base: logger, child: logger.child({ component }) }));
    return c.child;
  };
  // A stall shorter than half of lease − heartbeat cannot let a live owner's lease lapse
  // (it renews every heartbeat): only a longer one restarts the reaper's evidence.
  const stallMs = Math.max(1000, (config.leaseSeconds * 1000 - config.heartbeatMs) / 2);
  const health = new DbHealth(() => livenessDb.$queryRawUnsafe('SELECT 1'), base.child({ component: 'db-health' }), { stallMs });

  // Task log lines go over a connection of their own, so a chatty handler's flushes never
  // take a connection from the claims and completions (worker/task-log-writer.ts).
  // work_mem: the trigram index's pending-list merge, done by the inserting session, runs in it
  // (prisma/migrations/20261201600000_task_log_lines); 64 MB makes it several times cheaper per line.
  // createSqlPool sets it as a startup option, or per transaction behind a transaction-mode pooler,
  // which refuses startup options (and then every flush failed, keeping the lines unstored).
  const taskLogSql = createSqlPool(config.databaseUrl, 1, { settings: TASK_LOG_SESSION_SETTINGS, queryTimeoutMs });
  const taskLogPool = { query: (text: string, values: unknown[] = []) => taskLogSql.$executeRawUnsafe(text, ...values) };
  const taskLogs = new TaskLogWriter({ ...DEFAULT_TASK_LOG_CONFIG, ...config.taskLog }, {
    pool: taskLogPool,
    clock,
    get logger() {
      return componentLogger('task-log-writer');
    },
  });

  // Services are built now; their configs receive the node id at registration.
  const runnerConfig = { nodeId: '', concurrency: config.concurrency, leaseSeconds: config.leaseSeconds };
  const metrics = options.metrics;
  let claimer!: Claimer;
  /** what a DAG step's success offers for a hand-off of the next step (lib/engine/sql/complete-dag-tasks.ts) */
  const handoffNode = { handlers: handlerNames, group: config.group, labels: config.labels, leaseSeconds: config.leaseSeconds };
  const onClaimed = metrics
    ? (tasks: ClaimedTask[]) => {
        for (const t of tasks) metrics.claimed({ handler: t.handler });
      }
    : undefined;
  const runner = new Runner(runnerConfig, {
    db,
    hotDb,
    handlers: registry,
    clock,
    get logger() {
      return componentLogger('runner');
    },
    onSlotFree: () => claimer?.slotFree(),
    onReady: () => claimer?.wake(),
    handoff: () => (claimer?.acceptsHandoff() ? handoffNode : undefined),
    // a completion that offered a hand-off and whose outcome is unknown: the claimer reconciles
    onHandoffUncertain: () => claimer?.assignmentUncertain(),
    onHandedOff: (tasks) => {
      onClaimed?.(tasks);
      for (const t of tasks) runner.start(t);
    },
    // lateness at the real start (a task claimed ahead waits for its slot)
    onStarted: metrics
      ? (t, at) => metrics.started({ latenessMs: t.attempt === 1 && t.latenessFrom ? at.getTime() - t.latenessFrom.getTime() : undefined })
      : undefined,
    health,
    onCompleted: metrics ? (e) => metrics.completed(e) : undefined,
    taskLogs,
    secrets: config.secrets,
  });
  guardian?.watch(() =>
    shellDeadlineMs({ nowMs: clock().getTime(), earliestLeaseEndMs: runner.earliestLeaseEnd(), databaseDown: health.isDown, leaseSeconds: config.leaseSeconds }),
  );
  health.onUp(() => runner.retryRecordingNow());
  metrics?.setSlots(() => ({ running: runner.running, slots: config.concurrency }));
  const claimerConfig = {
    nodeId: '',
    group: config.group,
    labels: config.labels,
    handlers: handlerNames,
    fallbackHandlers,
    concurrency: config.concurrency,
    leaseSeconds: config.leaseSeconds,
    pollMs: config.pollMs,
    aheadMs: config.claimAheadMs,
    prefetchMultiplier: config.prefetchMultiplier,
  };
  claimer = new Claimer(claimerConfig, { db: hotDb, clock, logger: base.child({ component: 'claimer' }), runner, health, onClaimed });
  const tickerConfig = {
    intervalMs: config.tickMs, lookaheadMs: config.lookaheadMs, limit: config.tickBatch, misfireGraceMs: config.misfireGraceMs, triggeredBy: 'scheduler',
  };
  const ticker = new Ticker(tickerConfig, { db, clock, logger: base.child({ component: 'ticker' }), health, onPass: metrics && ((r) => metrics.tick(r)) });
  // What runs before this worker's first claim, at start() and when the database answers again after
  // an outage: a run created ahead of a slot missed meanwhile is withdrawn and the misfire policy
  // decides its slot, instead of this claim starting it late (docs/on-time.md "Look-ahead firing",
  // row "misfire"). A worker that ticks runs its ticker's catch-up; one that only claims withdraws
  // those runs and leaves their slots to the tickers (withdrawMissedAheadRuns).
  const beforeClaims = async (): Promise<void> => {
    if (roles.has('tick')) return ticker.catchUp();
    try {
      const withdrawn = await withdrawMissedAheadRuns(db, { graceMs: config.misfireGraceMs, actor: 'scheduler' }, clock());
      if (withdrawn.length) logger.info({ runs: withdrawn.length }, 'runs created ahead of a missed slot withdrawn before claiming');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'withdrawing runs created ahead of a missed slot failed; claiming anyway');
    }
  };
  health.onUp(() => {
    if (state !== 'running' || drainedByOperator) return;
    if (roles.has('claim')) claimer.holdUntil(beforeClaims());
    else if (roles.has('tick')) void ticker.catchUp();
  });
  const reaper = new Reaper(
    { intervalMs: config.reapMs, limit: 500, nodeOfflineSeconds: config.nodeOfflineSeconds, leaseSeconds: config.leaseSeconds },
    { db: livenessDb, clock, logger: base.child({ component: 'reaper' }), health, onPass: metrics && ((r) => metrics.leaseReclaims(r.reclaimedTasks)) },
  );
  // Alarm delivery runs beside the reaper.
  const alarms = new AlarmDispatcher(alarmDispatcherConfig(config), {
    db,
    clock,
    logger: base.child({ component: 'alarm-dispatcher' }),
    health,
    onPass: metrics && ((r) => metrics.alarms(r)),
  });
  const heartbeatConfig = { nodeId: '', intervalMs: config.heartbeatMs, leaseSeconds: config.leaseSeconds };
  // An operator's drain (lib/workers drainWorker) pauses claiming and ticking; a
  // resume (status back to online) starts them again. A SIGTERM drain is stop() below.
  let drainedByOperator = false;
  const onStatus = (status: NodeStatus | null) => {
    if (status === 'draining' && state === 'running' && !drainedByOperator) {
      drainedByOperator = true;
      logger.info('node set to draining by an operator: no new claims');
      void claimer.stop();
      void ticker.stop();
    } else if (status === 'online' && state === 'running' && drainedByOperator) {
      drainedByOperator = false;
      logger.info('node resumed by an operator: claiming again');
      if (roles.has('claim')) claimer.start();
      if (roles.has('tick')) ticker.start();
    }
  };
  const heartbeat = new Heartbeat(heartbeatConfig, { db: livenessDb, clock, health, logger: base.child({ component: 'heartbeat' }), runner, onStatus });
  // LISTEN needs a session of its own: behind a transaction-mode pooler it goes to the direct URL.
  const listener = new Listener(
    config.listenDatabaseUrl ?? config.databaseUrl,
    {
      onTasks: (at) => {
        if (roles.has('claim')) claimer.wake(at);
      },
      ...(roles.has('tick') ? { onJobs: (at: number | null) => ticker.wake(at) } : {}),
      onCancel: (ids) => {
        // A NOTIFY needs no privilege: anyone who can log in to the database sends one, the sql
        // executor's restricted role too (an operator's step). So a notification only says "look":
        // what is aborted is what the database says is cancelled (cancel-run-tasks.ts sets the
        // status in the transaction whose commit sends it). A real cancel whose check fails here
        // still ends the attempt: its lease is gone, so the next extension loses it.
        const wanted = ids.filter((id) => UUID_RE.test(id) && runner.activeTaskIds().includes(id));
        if (wanted.length === 0) return;
        void db
          .$queryRawUnsafe<{ id: string }[]>(`SELECT id::text AS id FROM tasks WHERE id = ANY($1::uuid[]) AND status = 'cancelled'`, wanted)
          .then((rows) => {
            for (const r of rows) runner.abort(r.id, 'cancelled');
          })
          .catch((err: unknown) => componentLogger('listener').warn({ err: (err as Error).message, taskIds: wanted }, 'cancel notification not checked; the lease settles those tasks'));
      },
    },
    base.child({ component: 'listener' }),
  );
  health.onUp(() => listener.reconnectNow());

  async function register(): Promise<string> {
    registered ??= (async () => {
      const id = await registerNode(
        db,
        {
          name: config.name,
          host,
          pid: process.pid,
          group: config.group,
          labels: config.labels,
          handlers: handlerNames,
          handlerSpecs: Object.fromEntries(Object.entries(options.handlerSpecs ?? {}).filter(([name]) => handlerNames.includes(name))),
          secretNames: [...(config.secrets?.keys() ?? [])].sort(),
          version: WORKER_VERSION,
        },
        clock(),
      );
      nodeId = id;
      runnerConfig.nodeId = id;
      claimerConfig.nodeId = id;
      heartbeatConfig.nodeId = id;
      tickerConfig.triggeredBy = `scheduler:${id}`;
      logger = base.child({ nodeId: id });
      return id;
    })();
    return registered;
  }

  const worker: Worker = {
    get nodeId() {
      return nodeId;
    },
    config,
    get state() {
      return state;
    },
    db,
    handlers: registry,
    runner,
    taskLogs,
    claimer,
    ticker,
    reaper,
    heartbeat,
    health,
    livenessDb,
    hotDb,
    register,
    async start() {
      await register();
      state = 'running';
      heartbeat.start();
      if (roles.has('claim') || roles.has('tick')) await listener.start();
      // Tick (or withdraw) before claiming: a run created ahead whose slot was missed while the stack
      // was down is withdrawn before this worker's first claim could start it late (docs/on-time.md).
      if (roles.has('claim')) await beforeClaims();
      else if (roles.has('tick')) await ticker.catchUp();
      if (roles.has('claim')) claimer.start();
      if (roles.has('tick')) ticker.start();
      if (roles.has('reap')) {
        reaper.start();
        alarms.start();
      }
      logger.info(
        { group: config.group, labels: config.labels, concurrency: config.concurrency, roles: [...roles], handlers: handlerNames },
        'worker started',
      );
    },
    async stop(opts = {}) {
      if (state === 'stopped') return { drained: true, aborted: 0 };
      const graceMs = opts.graceMs ?? config.shutdownGraceMs;
      state = 'draining';
      logger.info({ running: runner.count, graceMs }, 'worker draining: no new claims, waiting for running attempts');
      await Promise.all([claimer.stop(), ticker.stop()]);
      // Tasks claimed but waiting for a slot go back to the database for other workers.
      runner.handBackUnstarted();
      if (nodeId) await setNodeStatus(db, { nodeId, status: 'draining', runningTasks: runner.running }, clock()).catch(() => false);
      let drained = await runner.idle(graceMs);
      let aborted = 0;
      if (!drained) {
        const running = runner.running;
        aborted = runner.abortAll('shutdown');
        logger.warn({ aborted: running, handedBack: aborted - running }, 'shutdown grace over: aborting running attempts, handing back the tasks not started');
        drained = await runner.idle(Math.min(5000, Math.max(1000, config.shellKillGraceMs + 1000)));
      }
      // the keys of cancelled attempts whose handlers returned during the drain, freed before the pools close
      await runner.heldKeysFreed(5_000);
      runner.stopRecording();
      health.stop();
      await Promise.all([heartbeat.stop(), reaper.stop(), alarms.stop(), listener.stop()]);
      if (nodeId) await markNodeStopped(db, { nodeId, signal: opts.signal ?? null, runningTasks: runner.running }, clock()).catch(() => false);
      state = 'stopped';
      await taskLogs.stop().catch(() => undefined);
      await taskLogSql.$disconnect().catch(() => undefined);
      await registry.close();
      guardian?.close();
      await livenessDb.$disconnect().catch(() => undefined);
      await hotDb.$disconnect().catch(() => undefined);
      if (ownsDb) await db.$disconnect();
      logger.info({ drained, aborted }, 'worker stopped');
      return { drained, aborted };
    },
    async handBackNow(timeoutMs = 1000) {
      const deadline = Date.now() + timeoutMs;
      // No claim may take them again meanwhile (a claim in flight ends first).
      await Promise.race([claimer.stop(), new Promise((r) => setTimeout(r, timeoutMs))]);
      await runner.handBackAll(Math.max(0, deadline - Date.now()));
    },
    async kill() {
      state = 'stopped';
      runner.abortAll('shutdown');
      runner.stopRecording();
      health.stop();
      await Promise.all([claimer.stop(), ticker.stop(), heartbeat.stop(), reaper.stop(), alarms.stop(), listener.stop()]);
      await taskLogs.stop().catch(() => undefined);
      await taskLogSql.$disconnect().catch(() => undefined);
      await registry.close();
      guardian?.close();
      await livenessDb.$disconnect().catch(() => undefined);
      await hotDb.$disconnect().catch(() => undefined);
      if (ownsDb) await db.$disconnect().catch(() => undefined);
    },
  };
  return worker;
}
