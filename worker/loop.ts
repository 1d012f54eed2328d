/**
 * A small service loop: runs `step` every `intervalMs`, or sooner when woken;
 * errors are logged and retried with backoff, never thrown out of the loop.
 * The step's return value `true` asks for another pass at once (a full batch); a number
 * is the delay in ms until the next pass (a step that knows when work is due sleeps until
 * then instead of the interval); wakeIn(ms) brings a sleeping loop's next pass forward.
 * Timers use setLongTimeout (no delay above 2^31-1 ms reaches setTimeout).
 *
 * Back-off after failures: intervalMs · 2^n, capped at 30 s, with jitter
 * (uniform between half and the whole delay) so the workers of a cluster do
 * not retry in lock step. With a DbHealth, passes are reported to it, and when
 * the database answers again after an outage the back-off is dropped and a
 * pass runs at once (docs/engine.md "Outages"). A pass that did not ask the database anything
 * (SkippedPass: its step knew the database to be away) reports nothing: only an answer from the
 * database may say it is back.
 */
import type { Logger } from 'pino';
import { setLongTimeout, type LongTimeout } from '../lib/schedule/long-timeout.ts';
import type { DbHealth } from './db-health.ts';

/**
 * What a step returns for a pass that did not reach the database (it knows it to be away,
 * DbHealth.isDown): the loop passes again in `retryInMs` (ms) and reports nothing to DbHealth. A
 * plain return would count as a success and mark the database up, waking every loop at once into
 * statements that fail and mark it down again, round after round for as long as the outage lasts.
 */
export class SkippedPass {
  constructor(readonly retryInMs: number) {}
}

export interface ServiceLoopOptions {
  health?: DbHealth;
  random?: () => number;
}

export class ServiceLoop {
  private timer: LongTimeout | null = null;
  /** Date.now() at which the scheduled timer fires (only meaningful while `timer` is set) */
  private timerAt = 0;
  /** a wakeIn() that arrived during a pass: the earliest Date.now() it asked for */
  private wakeAtRequested: number | null = null;
  private running = false;
  private stopped = true;
  private wakeRequested = false;
  private failures = 0;
  /** recover() was called: the next pass runs without back-off even if the one in flight fails */
  private recovered = false;
  private current: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly step: () => Promise<boolean | number | void | SkippedPass>,
    private readonly logger: Logger,
    private readonly options: ServiceLoopOptions = {},
  ) {
    options.health?.onUp(() => this.recover());
  }

  /** The database answers again: forget the back-off and run a pass now. */
  recover(): void {
    if (this.failures === 0 && !this.running) return;
    this.failures = 0;
    this.recovered = true;
    this.wake(Math.floor((this.options.random ?? Math.random)() * 50));
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  /** Runs a pass as soon as possible (coalesced with a pass in flight). */
  wake(delayMs = 0): void {
    if (this.stopped) return;
    if (this.running) {
      this.wakeRequested = true;
      return;
    }
    this.schedule(delayMs);
  }

  /**
   * Runs a pass in `delayMs` (ms, >= 0) unless one is already due sooner; never postpones one.
   * During a pass the request is kept and applied after it.
   */
  wakeIn(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.running) {
      if (this.wakeAtRequested === null || at < this.wakeAtRequested) this.wakeAtRequested = at;
      return;
    }
    if (this.timer && this.timerAt <= at) return;
    this.schedule(at - Date.now());
  }

  /** Stops scheduling and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.clear();
    this.timer = null;
    await this.current;
  }

  private schedule(ms: number): void {
    this.timer?.clear();
    this.timerAt = Date.now() + Math.max(0, ms);
    const run = () => {
      this.timer = null;
      this.current = this.pass();
    };
    // A pass due now goes on the event loop's next check phase (setImmediate), not a 0 ms timer:
    // Node makes every timer wait at least 1 ms, which a NOTIFY-woken claim would pay on every
    // trigger (Node docs, "The Node.js Event Loop": setTimeout delays below 1 are set to 1).
    if (!(ms > 0)) {
      const immediate = setImmediate(run);
      this.timer = { clear: () => clearImmediate(immediate) };
      return;
    }
    this.timer = setLongTimeout(run, ms);
  }

  private async pass(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    this.wakeRequested = false;
    this.wakeAtRequested = null;
    this.recovered = false;
    let again = false;
    let nextMs: number | null = null;
    try {
      const r = await this.step();
      again = r === true;
      if (typeof r === 'number' && Number.isFinite(r)) nextMs = Math.max(0, r);
      this.failures = 0;
      if (r instanceof SkippedPass) nextMs = Math.max(0, r.retryInMs);
      else this.options.health?.reportSuccess();
    } catch (err) {
      this.failures++;
      this.options.health?.reportFailure(err);
      this.logger.error({ err, loop: this.name, failures: this.failures }, `${this.name}: pass failed`);
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.failures > 0 && this.recovered) {
      this.recovered = false;
      this.schedule(0);
    } else if (this.failures > 0) {
      const backoff = Math.min(30_000, this.intervalMs * 2 ** Math.min(this.failures, 5));
      this.schedule(Math.round(backoff * (0.5 + 0.5 * (this.options.random ?? Math.random)())));
    } else if (again || this.wakeRequested) {
      this.schedule(0);
    } else {
      let ms = nextMs ?? this.intervalMs;
      if (this.wakeAtRequested !== null) ms = Math.min(ms, this.wakeAtRequested - Date.now());
      this.schedule(Math.max(0, ms));
    }
  }
}
