/**
 * Ticker service: fires due jobs (lib/engine/tick runTick), creating the runs of
 * slots due within `lookaheadMs` ahead of time (their tasks claimable at the slot),
 * then sleeps until the next job enters that window (nextJobDue), a job left for
 * its slot is due, NOTIFY `tickflow_jobs` announces an earlier job, or at most
 * `intervalMs` (the safety pass: a lost notification costs at most that); a full
 * batch triggers another pass at once (docs/on-time.md). Any number of workers
 * may tick at the same time: the tick's row locks make firing exactly-once.
 */
import type { Logger } from 'pino';
import type { PrismaClient } from '../lib/db.ts';
import { runTick, type TickResult } from '../lib/engine/tick/run-tick.ts';
import { nextJobDue } from '../lib/engine/tick/sql/next-job-due.ts';
import { rewindMissedAheadJobs } from '../lib/engine/sql/ahead-runs.ts';
import type { DbHealth } from './db-health.ts';
import { ServiceLoop } from './loop.ts';

/** how soon to look again at jobs in the window that another ticker held, ms */
const RECHECK_MS = 100;

export interface TickerConfig {
  /** longest sleep between passes (the safety pass), ms */
  intervalMs: number;
  /** look-ahead window, ms (0: fire at the slot) */
  lookaheadMs: number;
  limit: number;
  misfireGraceMs: number;
  triggeredBy: string;
}

export class Ticker {
  private readonly loop: ServiceLoop;

  constructor(
    readonly config: TickerConfig,
    private readonly deps: { db: PrismaClient; clock: () => Date; logger: Logger; health?: DbHealth; onPass?: (result: TickResult) => void },
  ) {
    this.loop = new ServiceLoop('ticker', config.intervalMs, () => this.pass(), deps.logger, { health: deps.health });
  }

  /** One loop pass: tick, then the delay (ms) until the next pass (true: at once). */
  private async pass(): Promise<boolean | number> {
    // Nothing in the window (the idle case): one index probe, no tick transaction.
    const start = this.deps.clock().getTime();
    const first = await nextJobDue(this.deps.db);
    if (!first || first.getTime() > start + this.config.lookaheadMs) {
      const wake = Math.min(start + this.config.intervalMs, first ? first.getTime() - this.config.lookaheadMs : Infinity);
      return Math.max(0, wake - this.deps.clock().getTime());
    }
    const r = await this.runOnce(this.deps.clock());
    if (r.more) return true;
    const next = await nextJobDue(this.deps.db, { exclude: r.waitingJobIds });
    const now = this.deps.clock().getTime();
    let wake = now + this.config.intervalMs;
    // A job already in the window that this pass did not take is held by another ticker (or
    // just arrived): look again shortly rather than at the safety pass.
    if (next) wake = Math.min(wake, Math.max(next.getTime() - this.config.lookaheadMs, now + RECHECK_MS));
    if (r.deferredUntil) wake = Math.min(wake, r.deferredUntil.getTime());
    if (r.deferred > 0) wake = Math.min(wake, now + 1000); // a transient error: soon, not at once
    return Math.max(0, wake - now);
  }

  /**
   * One tick pass at `now`. `opts.waitForLockedJobs`: the catch-up's passes, which wait for due
   * jobs another tick holds (run-tick.ts TickOptions.waitForLockedJobs); the loop's skip them.
   */
  async runOnce(now: Date, opts: { waitForLockedJobs?: boolean } = {}): Promise<TickResult> {
    const result = await runTick(
      this.deps.db,
      {
        limit: this.config.limit,
        misfireGraceMs: this.config.misfireGraceMs,
        triggeredBy: this.config.triggeredBy,
        lookaheadMs: this.config.lookaheadMs,
        waitForLockedJobs: opts.waitForLockedJobs,
      },
      now,
    );
    this.deps.onPass?.(result);
    return result;
  }

  /**
   * Tick passes at once until one asks for no other (its batch not full, nothing left over for the
   * fire budget: run-tick.ts TickOptions.fireBudget; at most `maxPasses`), before a worker
   * that also claims starts claiming (create-worker.ts start): after downtime, a run created ahead
   * whose slot was missed is withdrawn and its slot decided by the misfire policy before a claim
   * could start it late (docs/on-time.md "Look-ahead firing", row "misfire"); a job with such a run
   * that is not due is made due first (lib/engine/sql/ahead-runs.ts rewindMissedAheadJobs). An
   * error is logged and left to the loop.
   */
  async catchUp(maxPasses = 100): Promise<void> {
    try {
      // a job whose slot was missed while it was not due at the restart is made due first, so that
      // these passes decide the slot (rewindMissedAheadJobs)
      const rewound = await rewindMissedAheadJobs(this.deps.db, { graceMs: this.config.misfireGraceMs }, this.deps.clock());
      if (rewound.length) this.deps.logger.info({ jobs: rewound.length }, 'ticker: jobs with a run created ahead of a missed slot made due');
      // waiting for due jobs another tick holds (this worker's own loop, another worker's): when
      // the claims begin, every job due now has been decided by a committed tick
      for (let i = 0; i < maxPasses; i++) if (!(await this.runOnce(this.deps.clock(), { waitForLockedJobs: true })).more) return;
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'ticker: first pass before claiming failed; the loop retries');
    }
  }

  start(): void {
    this.loop.start();
  }

  /** A job may fire at `at` (epoch ms; null = unknown): pass when it enters the window. */
  wake(at: number | null = null): void {
    if (at === null) {
      this.loop.wake();
      return;
    }
    this.loop.wakeIn(at - this.config.lookaheadMs - this.deps.clock().getTime());
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
