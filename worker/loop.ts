/**
 * A small service loop: runs `step` every `intervalMs`, or sooner when woken;
 * errors are logged and retried with backoff, never thrown out of the loop.
 * The step's return value `true` asks for another pass at once (a full batch); a number
 * is the delay in ms until the next pass (a step that knows when work is due sleeps until
 * then instead of the interval); wakeIn(ms) brings a sleeping loop's next pass forward.
 * Timers use setLongTimeout (no delay above 2^31-1 ms reaches setTimeout).
 */
import type { Logger } from 'pino';
import { setLongTimeout, type LongTimeout } from '../lib/schedule/long-timeout.ts';

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
  private current: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly step: () => Promise<boolean | number | void>,
    private readonly logger: Logger,
  ) {}

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
    this.timer = setLongTimeout(() => {
      this.timer = null;
      this.current = this.pass();
    }, ms);
  }

  private async pass(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    this.wakeRequested = false;
    this.wakeAtRequested = null;
    let again = false;
    let nextMs: number | null = null;
    try {
      const r = await this.step();
      again = r === true;
      if (typeof r === 'number' && Number.isFinite(r)) nextMs = Math.max(0, r);
      this.failures = 0;
    } catch (err) {
      this.failures++;
      this.logger.error({ err, loop: this.name, failures: this.failures }, `${this.name}: pass failed`);
    } finally {
      this.running = false;
    }
    if (this.stopped) return;
    if (this.failures > 0) {
      this.schedule(Math.min(30_000, this.intervalMs * 2 ** Math.min(this.failures, 5)));
    } else if (again || this.wakeRequested) {
      this.schedule(0);
    } else {
      let ms = nextMs ?? this.intervalMs;
      if (this.wakeAtRequested !== null) ms = Math.min(ms, this.wakeAtRequested - Date.now());
      this.schedule(Math.max(0, ms));
    }
  }
}
