/**
 * `npm run worker` — the worker process entry (node --import tsx worker/index.ts).
 *
 * Reads its configuration from the environment (worker/config.ts), registers a
 * node with a fresh id, and runs ticker, claimer, runner, heartbeat and reaper
 * until SIGTERM/SIGINT: then it stops claiming, marks the node draining, waits
 * for running attempts up to TICKFLOW_SHUTDOWN_GRACE_MS, marks the node stopped
 * (with the time and the signal) and exits 0. A second signal (not the same one delivered twice: see
 * lib/infra/stop-requests.ts) exits at once (code 130), after handing back the tasks it claimed
 * and has not started (at most 1 s); leases of attempts still running then expire and the
 * reaper of another worker reclaims them.
 */
import { createStopRequests } from '../lib/infra/stop-requests.ts';
import { serviceLogger } from '../lib/log.ts';
import { ConfigError, loadWorkerConfig } from './config.ts';
import { createWorker } from './create-worker.ts';
import { describeError } from './output.ts';
import { HandlerModuleError, loadHandlerModules, type LoadedHandlers } from './handlers/module-loader.ts';
import { BUILTIN_HANDLER_NAMES } from '../lib/jobs/known-handlers.ts';
import { metricsToken } from '../lib/metrics/access.ts';
import { createWorkerMetrics } from '../lib/metrics/metrics.ts';
import { startMetricsServer } from './metrics-server.ts';
import pg from 'pg';
import { DatabaseConnectError, explainConnectError } from '../lib/infra/database-connect-error.ts';

/** Longest wait (ms) for the task log lines of a worker that is ending on an uncaught exception (docs/task-logs.md). */
const CRASH_FLUSH_MS = 2000;

async function main(): Promise<void> {
  let config;
  try {
    config = loadWorkerConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`tickflow worker: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = serviceLogger('worker');
  // Handler modules load completely before the node registers: a bad one stops the
  // worker here (exit 2, like a bad variable), never a half-registered worker.
  let loaded: LoadedHandlers | undefined;
  if (config.handlerModules?.length) {
    try {
      loaded = await loadHandlerModules(config.handlerModules, { reservedNames: BUILTIN_HANDLER_NAMES });
    } catch (err) {
      if (err instanceof HandlerModuleError) {
        console.error(`tickflow worker: ${err.message}`);
        process.exit(2);
      }
      throw err;
    }
    log.info({ handlers: loaded.files }, 'handler modules loaded');
  }
  const metrics = config.metricsPort !== undefined ? createWorkerMetrics() : undefined;
  const worker = createWorker({ config, logger: log, handlers: loaded?.handlers, handlerSpecs: loaded?.specs, metrics });

  // A second signal exits at once; the same signal delivered twice (Ctrl-C reaches
  // this process and npm, which forwards it) is one request (lib/infra/stop-requests.ts).
  let started = false;
  const request = createStopRequests({
    onStop: (mode, signal) => {
      if (!started) {
        // still waiting for the database: nothing registered or claimed, nothing to drain
        log.info({ signal }, 'signal received before start: exiting');
        process.exit(0);
      }
      if (mode === 'now') {
        log.warn({ signal }, 'second signal: exiting now');
        // Tasks claimed and not started go back to the database first (at most 1 s), so they
        // run elsewhere on their first attempt instead of failing when their leases expire.
        void worker.handBackNow(1000).finally(() => process.exit(130));
        return;
      }
      log.info({ signal }, 'signal received: draining');
      worker
        .stop({ signal })
        // create-worker's stop() logs "worker stopped" with drained/aborted itself
        .then(() => process.exit(0))
        .catch((err) => {
          log.error({ err }, 'error while stopping');
          process.exit(1);
        });
    },
  });
  process.on('SIGTERM', () => request('SIGTERM'));
  process.on('SIGINT', () => request('SIGINT'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  // A handler runs in this process: an exception thrown where no await catches it (a timer callback) or its own
  // process.exit() ends every attempt here. Which attempt did it cannot be told without tracking every promise's
  // context, so the last lines name the attempts that were running (docs/handlers.md).
  // The lines the handlers wrote just before it (the ones that may tell which attempt threw) are still in the task log
  // writer's buffer for up to a flush interval: they are sent, with a last line on each running attempt saying why it
  // ended, before the process exits (at most CRASH_FLUSH_MS; no new claim meanwhile). A kill -9 cannot do that.
  let crashing = false;
  process.on('uncaughtException', (err) => {
    log.fatal({ err, running: worker.runner.runningAttempts() }, 'uncaught exception (a handler of a running attempt, most likely, threw outside its promise): the worker stops');
    if (crashing) return; // a second one while the lines are sent: the exit below is on its way
    crashing = true;
    void worker.claimer.stop().catch(() => undefined);
    const text = `the worker process stopped: uncaught exception (thrown outside a handler's promise, by this attempt or another running on the worker): ${describeError(err)}`;
    void worker.taskLogs.endAll(text, CRASH_FLUSH_MS).catch(() => undefined).finally(() => process.exit(1));
  });
  process.on('exit', (code) => {
    const running = worker.runner.runningAttempts();
    // synchronous: nothing asynchronous runs after 'exit'
    if (code !== 0 && running.length) console.error(`tickflow worker: exit ${code} with attempts running (reclaimed when their leases expire): ${running.map((a) => `${a.handler} task ${a.taskId} attempt ${a.attempt}`).join(', ')}`);
  });

  // The metrics port before anything else: a port that cannot be had stops the worker before it
  // registers a node (which would otherwise stay behind, go offline and raise an alarm).
  if (metrics && config.metricsPort !== undefined) {
    const host = config.metricsHost ?? '127.0.0.1';
    try {
      const server = await startMetricsServer(metrics.registry, { host, port: config.metricsPort, token: metricsToken() });
      log.info({ host, port: server.port, token: metricsToken() !== undefined }, 'metrics: GET /metrics');
    } catch (error) {
      console.error(`tickflow worker: cannot serve metrics on ${host}:${config.metricsPort} (TICKFLOW_METRICS_HOST, TICKFLOW_METRICS_PORT): ${(error as Error).message}`);
      process.exit(1);
    }
  }

  // Started while the database is away (a restart, a failover, a container starting before its
  // database): wait for it, as a running worker rides out an outage, instead of exiting. A missing
  // database or a refused user will not fix itself: say so, as `npm start` would, and exit 1.
  for (let waitMs = 1000; ; waitMs = Math.min(10_000, waitMs * 2)) {
    const problem = await connectProblem(config.databaseUrl);
    if (!problem) break;
    if (problem.problem !== 'unreachable') {
      console.error(`tickflow worker: ${problem.message}`);
      process.exit(1);
    }
    log.warn({ retryInMs: waitMs, reason: problem.message }, 'database not reachable yet: waiting for it before registering');
    await new Promise((r) => setTimeout(r, waitMs));
  }
  started = true;
  await worker.start();
  // Machine-readable line for supervisors and tests.
  // the names of the secrets it holds (never their values), to check a deployment against the steps that use them
  log.info({ nodeId: worker.nodeId, pid: process.pid, secrets: [...(config.secrets?.keys() ?? [])].sort() }, 'worker ready');
}

/**
 * `SELECT 1` on a fresh connection: undefined when it answers, or when it fails for a reason other
 * than the connection (start() reports that); else why it cannot connect (lib/infra/database-connect-error.ts).
 */
async function connectProblem(url: string): Promise<DatabaseConnectError | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    const explained = explainConnectError(error, url);
    return explained instanceof DatabaseConnectError ? explained : undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

main().catch((err) => {
  serviceLogger('worker').fatal({ err }, 'worker failed to start');
  process.exit(1);
});
