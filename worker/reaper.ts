/**
 * Reaper service: returns tasks whose lease expired (their worker died or hung)
 * to the engine's retry/dead decision (reclaimExpiredLeases), settles open runs
 * in which nothing can move any more (settleStrandedRuns: a worker died between
 * a batched DAG completion and the transaction that settles its runs), frees the
 * resource keys cancelled attempts held past their hold's end (expireHeldResourceKeys), and marks
 * nodes whose heartbeat is too old `offline` with a node_offline alarm. Safe to
 * run on every worker at once (SKIP LOCKED / compare-and-set / row locks).
 *
 * Liveness rule (docs/engine.md "Liveness"): an expired lease is evidence that
 * its worker died only if the worker could have renewed it. A worker renews
 * every lease/3 while it reaches the database, so the reaper acts only after
 * the database has been reachable for at least one full lease period —
 * - as seen by this process: no unreachable failure of any of its services for
 *   `leaseSeconds` (DbHealth.reachableForMs); and
 * - as seen by the server: it has been up for `leaseSeconds`
 *   (pg_postmaster_start_time; a restart between two of our passes may
 *   otherwise go unnoticed, since the pool reconnects silently).
 * After an outage every owner gets that period to renew (and it renews first
 * thing on reconnect), so a database outage of any length condemns no live
 * worker; a worker still silent after it did miss its heartbeats while the
 * database was reachable. The same rule, with `nodeOfflineSeconds`, guards
 * marking nodes offline.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { expireHeldResourceKeys, reclaimExpiredLeases, settleStrandedRuns } from '../lib/engine/index.ts';
import type { ReclaimedTask } from '../lib/engine/index.ts';
import { markOfflineNodes } from '../lib/engine/nodes/index.ts';
import type { DbHealth } from './db-health.ts';
import { ServiceLoop } from './loop.ts';

export interface ReaperConfig {
  intervalMs: number;
  /** expired leases handled per pass */
  limit: number;
  nodeOfflineSeconds: number;
  /** the cluster's lease length (TICKFLOW_LEASE_SECONDS): reachability needed before reclaiming; default 30 */
  leaseSeconds?: number;
}

/** A run must have been unchanged this long (s) before the reaper settles it as stranded. */
export const STRANDED_QUIET_SECONDS = 60;

/** The stranded-run sweep runs at most this often (ms): a stranded run waits a minute anyway, and an idle worker stays quiet. */
const STRANDED_SWEEP_MS = 30_000;

export interface ReapResult {
  reclaimed: number;
  /** what became of each reclaimed task: a failed attempt retried (pending) or dead, or an unstarted one handed back */
  reclaimedTasks: Pick<ReclaimedTask, 'handler' | 'status' | 'handedBack'>[];
  /** stranded runs settled (ended, or left open behind a serial gate) */
  settled: number;
  offlineNodes: string[];
  more: boolean;
  /** set when the pass did not reclaim because the database has not been reachable long enough */
  waitingForReachability?: { reachableMs: number; serverUpMs: number; neededMs: number };
}

export class Reaper {
  private readonly loop: ServiceLoop;
  /** clock ms of the last stranded-run sweep */
  private lastStrandedSweep = Number.NEGATIVE_INFINITY;

  constructor(
    readonly config: ReaperConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; health?: DbHealth; onPass?: (result: ReapResult) => void },
  ) {
    this.loop = new ServiceLoop('reaper', config.intervalMs, async () => (await this.runOnce(this.deps.clock())).more, deps.logger, { health: deps.health });
  }

  async runOnce(now: Date): Promise<ReapResult> {
    const serverUpMs = await this.serverUpMs();
    const reachableMs = Math.min(serverUpMs, this.deps.health?.reachableForMs() ?? Number.POSITIVE_INFINITY);
    const leaseMs = (this.config.leaseSeconds ?? 30) * 1000;
    let reclaimed = 0;
    let reclaimedTasks: ReapResult['reclaimedTasks'] = [];
    let settled = 0;
    let more = false;
    let waiting: ReapResult['waitingForReachability'];
    if (reachableMs >= leaseMs) {
      const res = await reclaimExpiredLeases(this.deps.db, { limit: this.config.limit }, now);
      reclaimed = res.length;
      reclaimedTasks = res.map((r) => ({ handler: r.handler, status: r.status, ...(r.handedBack ? { handedBack: true } : {}) }));
      more = reclaimed >= this.config.limit;
      if (reclaimed > 0) {
        const handedBack = res.filter((r) => r.handedBack).map((r) => r.taskId);
        this.deps.logger.warn(
          { reclaimed, tasks: res.map((r) => r.taskId), ...(handedBack.length ? { handedBackUnstarted: handedBack } : {}) },
          'reaper: reclaimed tasks with expired leases',
        );
      }
      // keys cancelled attempts held past their hold's lease end: their worker died or stalls
      const expiredKeys = await expireHeldResourceKeys(this.deps.db, now);
      if (expiredKeys.length > 0) {
        this.deps.logger.warn({ resourceKeys: expiredKeys }, 'reaper: freed resource keys whose cancelled attempt\'s worker stopped renewing them');
      }
      if (now.getTime() - this.lastStrandedSweep >= STRANDED_SWEEP_MS || now.getTime() < this.lastStrandedSweep) {
        this.lastStrandedSweep = now.getTime();
        const stranded = await settleStrandedRuns(this.deps.db, { quietSeconds: STRANDED_QUIET_SECONDS, limit: this.config.limit }, now);
        settled = stranded.length;
        const ended = stranded.filter((r) => r.status !== null);
        if (ended.length > 0) this.deps.logger.warn({ runs: ended }, 'reaper: ended stranded runs (every task final, the run still open)');
      }
    } else {
      waiting = { reachableMs: Math.round(reachableMs), serverUpMs: Math.round(serverUpMs), neededMs: leaseMs };
    }
    let offline: Awaited<ReturnType<typeof markOfflineNodes>> = [];
    if (reachableMs >= this.config.nodeOfflineSeconds * 1000) {
      offline = await markOfflineNodes(this.deps.db, { offlineAfterSeconds: this.config.nodeOfflineSeconds }, now);
      for (const n of offline) {
        this.deps.logger.warn({ nodeId: n.nodeId, name: n.name, lastHeartbeatAt: n.lastHeartbeatAt }, 'reaper: node marked offline');
      }
    }
    const result = { reclaimed, reclaimedTasks, settled, offlineNodes: offline.map((n) => n.nodeId), more, ...(waiting ? { waitingForReachability: waiting } : {}) };
    this.deps.onPass?.(result);
    return result;
  }

  /** How long the database server has been running, ms, by its own clock. */
  private async serverUpMs(): Promise<number> {
    const rows = await this.deps.db.$queryRawUnsafe<{ ms: number }[]>(
      `SELECT (extract(epoch FROM (clock_timestamp() - pg_postmaster_start_time())) * 1000)::float8 AS ms`,
    );
    return Number(rows[0]?.ms ?? 0);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
