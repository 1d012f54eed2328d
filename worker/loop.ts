/**
 * A small service loop: runs `step` every `intervalMs`, or sooner when woken;
 * errors are logged and retried with backoff, never thrown out of the loop.
 * The step's return value `true` asks for another pass at once (a full batch).
 * Timers use setLongTimeout (no delay above 2^31-1 ms reaches setTimeout).
 */
import type { Logger } from 'pino';
import { setLongTimeout, type LongTimeout } from '../lib/schedule/long-timeout.ts';

export class ServiceLoop {
  private timer: LongTimeout | null = null;
  private running = false;
  private stopped = true;
  private wakeRequested = false;
  private failures = 0;
  private current: Promise<void> | null = null;

  constructor(
    readonly name: string,
    private readonly intervalMs: number,
    private readonly step: () => Promise<boolean | void>,
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

  /** Stops scheduling and waits for a pass in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.clear();
    this.timer = null;
    await this.current;
  }

  private schedule(ms: number): void {
    this.timer?.clear();
    this.timer = setLongTimeout(() => {
      this.timer = null;
      this.current = this.pass();
    }, ms);
  }

  private async pass(): Promise<void> {
    if (this.stopped || this.running) return;
    this.running = true;
    this.wakeRequested = false;
    let again = false;
    try {
      again = (await this.step()) === true;
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
      this.schedule(this.intervalMs);
    }
  }
}
