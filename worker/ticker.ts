/**
 * Ticker service: fires due jobs (lib/engine/tick runTick) every `intervalMs`;
 * a full batch triggers another pass at once. Any number of workers may tick
 * at the same time: the tick's row locks make firing exactly-once.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { runTick, type TickResult } from '../lib/engine/tick/run-tick.ts';
import { ServiceLoop } from './loop.ts';

export interface TickerConfig {
  intervalMs: number;
  limit: number;
  misfireGraceMs: number;
  triggeredBy: string;
}

export class Ticker {
  private readonly loop: ServiceLoop;

  constructor(
    readonly config: TickerConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; onPass?: (result: TickResult) => void },
  ) {
    this.loop = new ServiceLoop('ticker', config.intervalMs, async () => (await this.runOnce(this.deps.clock())).more, deps.logger);
  }

  /** One tick pass at `now`. */
  async runOnce(now: Date): Promise<TickResult> {
    const result = await runTick(
      this.deps.db,
      { limit: this.config.limit, misfireGraceMs: this.config.misfireGraceMs, triggeredBy: this.config.triggeredBy },
      now,
    );
    this.deps.onPass?.(result);
    return result;
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
