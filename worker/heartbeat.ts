/**
 * Heartbeat service: keeps this node alive in worker_nodes (running tasks,
 * cpu/memory/load) and extends the leases of the attempts it is running, so a
 * long handler within its timeout is never reclaimed (docs/engine-cases.md case 3).
 * An attempt whose lease could not be extended (reclaimed after a long pause,
 * or cancelled) is aborted locally: the database no longer gives it to us.
 * A node status of `draining` set by an operator reaches the worker here.
 * It runs on the worker's small liveness pool (create-worker.ts), so a worker
 * whose main pool is exhausted by long work still beats and renews.
 */
import { loadavg } from 'node:os';
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { extendLeases, renewHeldResourceKeys } from '../lib/engine/index.ts';
import { heartbeatNode, type NodeStatus } from '../lib/engine/nodes/index.ts';
import type { DbHealth } from './db-health.ts';
import { ServiceLoop } from './loop.ts';
import type { Runner } from './runner.ts';

export interface HeartbeatConfig {
  nodeId: string;
  intervalMs: number;
  leaseSeconds: number;
}

export interface HeartbeatResult {
  status: NodeStatus | null;
  extended: number;
  lost: string[];
}

export class Heartbeat {
  private readonly loop: ServiceLoop;
  private lastCpu = process.cpuUsage();
  private lastAt = process.hrtime.bigint();

  constructor(
    readonly config: HeartbeatConfig,
    private readonly deps: {
      db: PrismaClient;
      clock: () => Date;
      logger: Logger;
      runner: Runner;
      onStatus?: (status: NodeStatus | null) => void;
      health?: DbHealth;
    },
  ) {
    // Registered before any other service's listener: after an outage, leases are renewed first.
    deps.health?.onUp(() => this.loop.wake());
    this.loop = new ServiceLoop('heartbeat', config.intervalMs, async () => {
      await this.runOnce(this.deps.clock());
    }, deps.logger, { health: deps.health });
  }

  private cpuPercent(): number {
    const now = process.hrtime.bigint();
    const usage = process.cpuUsage(this.lastCpu);
    const elapsedUs = Number(now - this.lastAt) / 1000;
    this.lastCpu = process.cpuUsage();
    this.lastAt = now;
    if (elapsedUs <= 0) return 0;
    return Math.round(((usage.user + usage.system) / elapsedUs) * 1000) / 10;
  }

  async runOnce(now: Date): Promise<HeartbeatResult> {
    const { runner } = this.deps;
    const ids = runner.activeTaskIds();
    const asked = new Map(ids.map((id) => [id, runner.holding(id)]));
    let lost: string[] = [];
    let extended = 0;
    if (ids.length > 0) {
      const res = await extendLeases(this.deps.db, { nodeId: this.config.nodeId, taskIds: ids, leaseSeconds: this.config.leaseSeconds, startedTaskIds: runner.startedTaskIds() }, now);
      extended = res.extended.length;
      runner.leasesRenewed(now.getTime() + this.config.leaseSeconds * 1000);
      // Only what is still held as it was when asked: an attempt that completed meanwhile is not
      // "lost", nor is the next attempt of the same task claimed meanwhile (its retry), which the
      // renewal never asked about and whose lease is fresh.
      lost = res.lost.filter((id) => {
        const now = runner.holding(id);
        return now !== undefined && now === asked.get(id);
      });
      const cancelled = new Set(res.cancelled);
      for (const id of lost) {
        // A cancel's NOTIFY may come after this heartbeat: the attempt ends as cancelled either way.
        if (cancelled.has(id)) {
          if (runner.abort(id, 'cancelled')) this.deps.logger.info({ taskId: id }, 'heartbeat: task cancelled; aborting the attempt');
          continue;
        }
        // abort() is true only for an attempt still to start or running. Otherwise the handler is
        // done and its outcome is being recorded: the task is no longer ours because that record
        // committed meanwhile (a DAG batch settles its run after its commit) or it was reclaimed,
        // and either way there is nothing to abort: not a warning.
        if (runner.abort(id, 'lease_lost')) this.deps.logger.warn({ taskId: id }, 'heartbeat: lease lost (reclaimed); aborting the attempt');
        else this.deps.logger.debug({ taskId: id }, 'heartbeat: lease gone while the outcome is being recorded (recorded meanwhile, or reclaimed)');
      }
    }
    // A cancelled attempt whose handler still runs keeps its resource key (held-resource-keys.ts)
    // for as long as this heartbeat says so.
    const holdingKeys = runner.keyHoldingTaskIds();
    if (holdingKeys.length > 0) {
      await renewHeldResourceKeys(this.deps.db, { nodeId: this.config.nodeId, taskIds: holdingKeys, leaseSeconds: this.config.leaseSeconds }, now);
    }
    const status = await heartbeatNode(
      this.deps.db,
      {
        nodeId: this.config.nodeId,
        runningTasks: runner.running,
        cpuPercent: this.cpuPercent(),
        memoryMb: Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10,
        load1: loadavg()[0] ?? null,
      },
      now,
    );
    this.deps.onStatus?.(status);
    return { status, extended, lost };
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
