/**
 * Database reachability as one worker process sees it (docs/engine.md "Liveness").
 *
 * Every service loop reports its passes here. A failure that says the database
 * cannot be reached (the one rule of lib/infra/database-unavailable.ts: connection
 * refused or reset, server starting up or shutting down, connection terminated,
 * too many connections) marks it down; from then on a probe (`SELECT 1`
 * on the worker's small liveness pool) runs every `probeMs` with jitter, and its
 * first success marks it up again and calls every `onUp` listener at once: the
 * heartbeat renews leases, pending completions are sent, the claimer and the
 * listener reconnect without waiting for their back-off. So work resumes within
 * about one probe interval after the server accepts connections, whatever the
 * outage length.
 *
 * `reachableForMs()` is how long the database has answered without a failure
 * seen by this process — the evidence the reaper needs before it may call a
 * silent worker dead (worker/reaper.ts). Times are monotonic (performance.now),
 * not the injectable clock: they measure real waiting, not business time.
 *
 * A process that was stalled (SIGSTOP, a suspended machine, a blocked event loop) watched
 * nothing meanwhile: its own heartbeat could not renew its leases either, and every worker of a
 * suspended machine wakes with leases that lapsed while nobody could renew them. So with
 * `stallMs` set, a gap longer than that between two moments this process ran (a timer every
 * STALL_WATCH_MS keeps them close) restarts the stretch: the reaper then waits a full lease
 * again, and the owners renew first.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../lib/infra/database-unavailable.ts';

export interface DbHealthOptions {
  /** pause between probes while the database is down, ms (default 250; jittered ±50 %) */
  probeMs?: number;
  random?: () => number;
  /** monotonic clock in ms (default performance.now; tests pass their own) */
  now?: () => number;
  /**
   * a gap this long (ms) in which this process did not run restarts the reachable stretch
   * (create-worker.ts: half of lease − heartbeat, at least 1 s); unset: gaps are not watched
   */
  stallMs?: number;
}

/** How often (ms) a watched process notes that it runs (DbHealthOptions.stallMs). */
export const STALL_WATCH_MS = 500;

export class DbHealth {
  private down = false;
  /** start of the current stretch without an unreachable failure (monotonic ms) */
  private upSince: number;
  private readonly listeners: (() => void)[] = [];
  private probeTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly probeMs: number;
  private readonly random: () => number;
  private readonly now: () => number;
  private readonly stallMs: number | undefined;
  /** the last moment this process was seen running (monotonic ms) */
  private lastRan: number;
  private watchTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly probe: () => Promise<unknown>,
    private readonly logger: Logger,
    options: DbHealthOptions = {},
  ) {
    this.probeMs = Math.max(10, options.probeMs ?? 250);
    this.random = options.random ?? Math.random;
    this.now = options.now ?? (() => performance.now());
    this.upSince = this.now();
    this.lastRan = this.upSince;
    this.stallMs = options.stallMs;
    if (this.stallMs !== undefined) {
      this.watchTimer = setInterval(() => this.ran(), STALL_WATCH_MS);
      this.watchTimer.unref();
    }
  }

  /** Notes that this process runs now; after a gap over stallMs the reachable stretch starts again. */
  private ran(): void {
    const now = this.now();
    if (this.stallMs !== undefined && now - this.lastRan > this.stallMs) {
      this.upSince = Math.max(this.upSince, now);
      this.logger.warn({ stalledMs: Math.round(now - this.lastRan) }, 'this process did not run for a while (stopped, suspended or blocked): leases are judged afresh from now');
    }
    this.lastRan = now;
  }

  /** whether the last report said the database cannot be reached */
  get isDown(): boolean {
    return this.down;
  }

  /** ms since the database last failed to answer this process, or since it last woke from a stall (0 while down) */
  reachableForMs(): number {
    this.ran();
    return this.down ? 0 : this.now() - this.upSince;
  }

  /** Registers `fn` to run each time the database answers again after an outage (in registration order). */
  onUp(fn: () => void): void {
    this.listeners.push(fn);
  }

  /** A database operation failed: if the database is unreachable, mark it down and start probing. */
  reportFailure(err: unknown): void {
    if (!isDatabaseUnavailable(err)) return;
    this.upSince = this.now();
    if (this.down) return;
    this.down = true;
    this.logger.warn({ err: (err as Error)?.message }, 'database unreachable: probing until it answers');
    this.scheduleProbe();
  }

  /** A database operation succeeded. */
  reportSuccess(): void {
    if (this.down) this.markUp();
  }

  stop(): void {
    this.stopped = true;
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    if (this.watchTimer) clearInterval(this.watchTimer);
    this.watchTimer = null;
  }

  private markUp(): void {
    if (!this.down) return;
    this.down = false;
    this.upSince = this.now();
    if (this.probeTimer) clearTimeout(this.probeTimer);
    this.probeTimer = null;
    this.logger.info('database reachable again: renewing leases, then resuming work');
    for (const fn of this.listeners) {
      try {
        fn();
      } catch (err) {
        this.logger.error({ err }, 'db-health: an onUp listener failed');
      }
    }
  }

  private scheduleProbe(): void {
    if (this.stopped || this.probeTimer || !this.down) return;
    const delay = Math.round(this.probeMs * (0.5 + this.random()));
    this.probeTimer = setTimeout(() => {
      this.probeTimer = null;
      this.probe().then(
        () => this.markUp(),
        (err) => {
          if (isDatabaseUnavailable(err)) this.upSince = this.now();
          this.scheduleProbe();
        },
      );
    }, delay);
  }
}
