/**
 * Claimer service: moves ready tasks to this worker in batches of up to its
 * free concurrency slots (engine claimTasks: one UPDATE ... WHERE id IN
 * (SELECT ... FOR UPDATE SKIP LOCKED) with routing enforced in SQL), and hands
 * them to the runner. It wakes on NOTIFY `tickflow_tasks` (see listener.ts),
 * when a slot frees up while work is known to be waiting, and on a poll
 * interval, so a lost notification only costs latency. There is no per-task polling.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { claimTasks } from '../lib/engine/index.ts';
import type { ClaimedTask } from '../lib/engine/types.ts';
import { ServiceLoop } from './loop.ts';
import type { Runner } from './runner.ts';

export interface ClaimerConfig {
  nodeId: string;
  group: string;
  labels: Record<string, string>;
  handlers: string[];
  concurrency: number;
  leaseSeconds: number;
  pollMs: number;
}

export class Claimer {
  private readonly loop: ServiceLoop;
  private paused = false;
  /** the last claim filled every free slot: more work is probably waiting */
  private backlog = false;
  private slotWake: NodeJS.Timeout | null = null;

  constructor(
    readonly config: ClaimerConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; runner: Runner; onClaimed?: (tasks: ClaimedTask[]) => void },
  ) {
    this.loop = new ServiceLoop('claimer', config.pollMs, async () => (await this.runOnce(this.deps.clock())) > 0 && this.backlog, deps.logger);
  }

  /** Claims up to the free slots at `now` and starts them; returns how many were claimed. */
  async runOnce(now: Date): Promise<number> {
    if (this.paused) return 0;
    const free = this.config.concurrency - this.deps.runner.count;
    if (free <= 0) {
      this.backlog = true;
      return 0;
    }
    const tasks: ClaimedTask[] = await claimTasks(
      this.deps.db,
      {
        nodeId: this.config.nodeId,
        handlers: this.config.handlers,
        group: this.config.group,
        labels: this.config.labels,
        limit: free,
        leaseSeconds: this.config.leaseSeconds,
      },
      now,
    );
    this.backlog = tasks.length >= free;
    if (tasks.length) this.deps.onClaimed?.(tasks);
    if (this.paused) {
      // Stopped while the claim was in flight: run what we got anyway (it is ours now).
      this.deps.logger.info({ claimed: tasks.length }, 'claimer: claimed while stopping; running them');
    }
    for (const t of tasks) this.deps.runner.start(t);
    return tasks.length;
  }

  /** NOTIFY arrived: something became ready. */
  wake(): void {
    this.loop.wake();
  }

  /**
   * A slot freed up: claim again if work was waiting. Completions are batched
   * into one claim: at once when half the slots are free, else after a few ms,
   * so a busy worker claims several tasks per round trip instead of one.
   */
  slotFree(): void {
    if (!this.backlog || this.paused || this.slotWake) return;
    const free = this.config.concurrency - this.deps.runner.count;
    if (free >= Math.ceil(this.config.concurrency / 2)) {
      this.loop.wake();
      return;
    }
    this.slotWake = setTimeout(() => {
      this.slotWake = null;
      this.loop.wake();
    }, 15);
  }

  start(): void {
    this.paused = false;
    this.loop.start();
  }

  /** Stops claiming (drain); running attempts are not touched. */
  async stop(): Promise<void> {
    this.paused = true;
    if (this.slotWake) clearTimeout(this.slotWake);
    this.slotWake = null;
    await this.loop.stop();
  }
}
