/**
 * Reaper service: returns tasks whose lease expired (their worker died or hung)
 * to the engine's retry/dead decision (reclaimExpiredLeases), and marks nodes
 * whose heartbeat is too old `offline` with a node_offline alarm. Safe to run on
 * every worker at once (both are SKIP LOCKED / compare-and-set).
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { reclaimExpiredLeases } from '../lib/engine/index.ts';
import { markOfflineNodes } from '../lib/engine/nodes/index.ts';
import { ServiceLoop } from './loop.ts';

export interface ReaperConfig {
  intervalMs: number;
  /** expired leases handled per pass */
  limit: number;
  nodeOfflineSeconds: number;
}

export interface ReapResult {
  reclaimed: number;
  offlineNodes: string[];
  more: boolean;
}

export class Reaper {
  private readonly loop: ServiceLoop;

  constructor(
    readonly config: ReaperConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; onPass?: (result: ReapResult) => void },
  ) {
    this.loop = new ServiceLoop('reaper', config.intervalMs, async () => (await this.runOnce(this.deps.clock())).more, deps.logger);
  }

  async runOnce(now: Date): Promise<ReapResult> {
    const res = await reclaimExpiredLeases(this.deps.db, { limit: this.config.limit }, now);
    const reclaimed = res.length;
    if (reclaimed > 0) this.deps.logger.warn({ reclaimed, tasks: res.map((r) => r.taskId) }, 'reaper: reclaimed tasks with expired leases');
    const offline = await markOfflineNodes(this.deps.db, { offlineAfterSeconds: this.config.nodeOfflineSeconds }, now);
    for (const n of offline) {
      this.deps.logger.warn({ nodeId: n.nodeId, name: n.name, lastHeartbeatAt: n.lastHeartbeatAt }, 'reaper: node marked offline');
    }
    const result = { reclaimed, offlineNodes: offline.map((n) => n.nodeId), more: reclaimed >= this.config.limit };
    this.deps.onPass?.(result);
    return result;
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
