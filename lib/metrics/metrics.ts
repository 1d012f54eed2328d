/**
 * Prometheus metrics (prom-client), names and labels as in docs/metrics.md:
 * units in names (`_seconds`, `_total`), label values from small fixed sets or
 * handler names (a deployment registers a handful) — never a job, run or task id.
 *
 * - `createWorkerMetrics`: what one worker process does (claims, completions,
 *   durations, retries, lease reclaims, misfires, alarms), counted in process;
 * - `registerClusterMetrics`: the state of the whole installation read from
 *   the database at scrape time (ready queue, oldest ready task, workers) — the
 *   console serves these, so "no worker online" is reported by something that
 *   is not a worker;
 * - both: this process's database pool use and the default process metrics.
 */
import client from 'prom-client';
import type { Db } from '../db.ts';
import { countNodesByStatus, HEARTBEAT_STALE_SECONDS, NODE_COUNT_STATUSES } from '../workers/node-status.ts';
import { poolUse } from './pool-stats.ts';

/** Histogram buckets of task durations (s): 10 ms … 1 h. */
export const DURATION_BUCKETS_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];
/** Histogram buckets of scheduled-start lateness (s): 10 ms … 10 min. */
export const LATENESS_BUCKETS_SECONDS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 600];

/** A registry with the default process metrics and this process's database pool use. */
export function createRegistry(): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const gauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({ name, help, registers: [registry], collect() { this.set(read()); } });
  gauge('tickflow_db_pool_connections', 'Database connections this process holds open (busy + idle).', () => poolUse().total);
  gauge('tickflow_db_pool_idle_connections', 'Open database connections of this process not in use.', () => poolUse().idle);
  gauge('tickflow_db_pool_waiting_requests', 'Queries of this process waiting for a free database connection.', () => poolUse().waiting);
  gauge('tickflow_db_pool_max_connections', 'Database connections this process may open (TICKFLOW_DB_POOL).', () => poolUse().max);
  return registry;
}

export type AttemptOutcome = 'success' | 'failed' | 'timeout';

/** The counters a worker increments; each method takes what the worker has at hand. */
export interface WorkerMetrics {
  readonly registry: client.Registry;
  /** a task claimed (counted at the claim) */
  claimed(task: { handler: string }): void;
  /** an attempt started: `latenessMs` is its real start − ClaimedTask.latenessFrom (slot or ready instant), for a first attempt (omit for retries) */
  started(task: { latenessMs?: number }): void;
  /** an attempt's outcome was recorded; `taskStatus` is what the task became (pending = a retry was scheduled) */
  completed(e: { handler: string; outcome: AttemptOutcome; durationMs: number; taskStatus?: 'success' | 'pending' | 'dead' }): void;
  /**
   * a reaper pass reclaimed these tasks: each counts as a lease reclaim, and a failed attempt's
   * outcome as `completed` books it (a retry scheduled, or dead); an unstarted task handed back
   * failed no attempt
   */
  leaseReclaims(tasks: readonly { handler: string; status: 'pending' | 'dead' | 'success'; handedBack?: boolean }[]): void;
  tick(e: { fired: number; misfires: number }): void;
  alarms(e: { sent: number; retried: number; failed: number }): void;
  /** live gauges: attempts running and slots of this worker */
  setSlots(read: () => { running: number; slots: number }): void;
}

/** Worker metrics on a fresh registry (see the module comment). */
export function createWorkerMetrics(registry = createRegistry()): WorkerMetrics {
  const r = [registry];
  const claims = new client.Counter({ name: 'tickflow_claims_total', help: 'Tasks claimed by this worker.', labelNames: ['handler'], registers: r });
  const completions = new client.Counter({
    name: 'tickflow_completions_total',
    help: 'Attempts whose outcome this worker recorded, by outcome (success, failed, timeout).',
    labelNames: ['handler', 'outcome'],
    registers: r,
  });
  const duration = new client.Histogram({
    name: 'tickflow_task_duration_seconds',
    help: 'Run time of attempts on this worker, claim to outcome.',
    labelNames: ['handler', 'outcome'],
    buckets: DURATION_BUCKETS_SECONDS,
    registers: r,
  });
  const retries = new client.Counter({ name: 'tickflow_retries_total', help: 'Failed attempts for which a retry was scheduled.', labelNames: ['handler'], registers: r });
  const dead = new client.Counter({ name: 'tickflow_dead_tasks_total', help: 'Tasks that used up their retries (dead).', labelNames: ['handler'], registers: r });
  const lateness = new client.Histogram({
    name: 'tickflow_start_lateness_seconds',
    help: 'Start time minus scheduled time of first attempts claimed by this worker.',
    buckets: LATENESS_BUCKETS_SECONDS,
    registers: r,
  });
  const reclaims = new client.Counter({ name: 'tickflow_lease_reclaims_total', help: 'Running tasks whose lease expired and that this worker reclaimed.', registers: r });
  const fired = new client.Counter({ name: 'tickflow_runs_fired_total', help: 'Runs created by this worker\'s scheduler tick.', registers: r });
  const misfires = new client.Counter({ name: 'tickflow_misfires_total', help: 'Jobs this worker\'s tick found late beyond the misfire grace (handled per misfire policy).', registers: r });
  const alarmsSent = new client.Counter({ name: 'tickflow_alarms_sent_total', help: 'Alarm deliveries that succeeded.', registers: r });
  const alarmsFailed = new client.Counter({
    name: 'tickflow_alarms_failed_total',
    help: 'Alarm delivery attempts that failed; final="true" when the alarm was given up.',
    labelNames: ['final'],
    registers: r,
  });
  let slots = () => ({ running: 0, slots: 0 });
  new client.Gauge({ name: 'tickflow_worker_running_tasks', help: 'Attempts running on this worker.', registers: r, collect() { this.set(slots().running); } });
  new client.Gauge({ name: 'tickflow_worker_slots', help: 'Attempts this worker may run at once (TICKFLOW_CONCURRENCY).', registers: r, collect() { this.set(slots().slots); } });

  return {
    registry,
    claimed({ handler }) {
      claims.inc({ handler });
    },
    started({ latenessMs }) {
      if (latenessMs !== undefined && Number.isFinite(latenessMs)) lateness.observe(Math.max(0, latenessMs) / 1000);
    },
    completed({ handler, outcome, durationMs, taskStatus }) {
      completions.inc({ handler, outcome });
      duration.observe({ handler, outcome }, Math.max(0, durationMs) / 1000);
      if (outcome !== 'success' && taskStatus === 'pending') retries.inc({ handler });
      if (taskStatus === 'dead') dead.inc({ handler });
    },
    leaseReclaims(tasks) {
      if (tasks.length > 0) reclaims.inc(tasks.length);
      for (const t of tasks) {
        if (t.handedBack) continue;
        if (t.status === 'pending') retries.inc({ handler: t.handler });
        else if (t.status === 'dead') dead.inc({ handler: t.handler });
      }
    },
    tick(e) {
      if (e.fired > 0) fired.inc(e.fired);
      if (e.misfires > 0) misfires.inc(e.misfires);
    },
    alarms(e) {
      if (e.sent > 0) alarmsSent.inc(e.sent);
      if (e.retried > 0) alarmsFailed.inc({ final: 'false' }, e.retried);
      if (e.failed > 0) alarmsFailed.inc({ final: 'true' }, e.failed);
    },
    setSlots(read) {
      slots = read;
    },
  };
}


/**
 * Adds the installation-wide gauges, read from the database at each scrape
 * (three indexed queries): ready tasks by handler, the oldest ready task's
 * age, and workers by status.
 * @param db a client of Tickflow's database
 * @param now clock (tests)
 */
export function registerClusterMetrics(registry: client.Registry, db: () => Db, now: () => Date = () => new Date()): void {
  const r = [registry];
  new client.Gauge({
    name: 'tickflow_ready_tasks',
    help: 'Tasks ready to be claimed (pending, parents done, start time reached), by handler.',
    labelNames: ['handler'],
    registers: r,
    async collect() {
      const rows = await db().$queryRaw<{ handler: string; n: number }[]>`
        SELECT handler, count(*)::int AS n FROM tasks
        WHERE status = 'pending' AND pending_parents = 0 AND schedule_at <= ${now()} GROUP BY handler`;
      this.reset();
      for (const row of rows) this.set({ handler: row.handler }, row.n);
    },
  });
  new client.Gauge({
    name: 'tickflow_oldest_ready_task_age_seconds',
    help: 'How long the oldest ready task has waited since its start time (0 when none is waiting).',
    registers: r,
    async collect() {
      const [row] = await db().$queryRaw<{ oldest: Date | null }[]>`
        SELECT min(schedule_at) AS oldest FROM tasks WHERE status = 'pending' AND pending_parents = 0 AND schedule_at <= ${now()}`;
      this.set(row?.oldest ? Math.max(0, (now().getTime() - row.oldest.getTime()) / 1000) : 0);
    },
  });
  new client.Gauge({
    name: 'tickflow_workers',
    help: `Registered worker nodes by status (as the Workers page shows them): online and draining = heartbeat within ${HEARTBEAT_STALE_SECONDS} s; stale = an online or draining node whose heartbeat is older; offline = heartbeat lost (marked by the reaper); stopped = stopped cleanly.`,
    labelNames: ['status'],
    registers: r,
    async collect() {
      const at = now();
      const rows = await db().workerNode.findMany({ select: { status: true, lastHeartbeatAt: true } });
      const counts = countNodesByStatus(rows, at);
      for (const status of NODE_COUNT_STATUSES) this.set({ status }, counts[status]);
    },
  });
}
