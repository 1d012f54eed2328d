/**
 * Collects items and hands them to `send` in batches: everything added during one turn of the
 * event loop goes in one call (up to `max` items; the rest in the next turns), so many small
 * writes that come due together become one statement. `send` must not throw: it handles its
 * own errors (a rejection is ignored here).
 */
export class TurnBatch<T> {
  private queue: T[] = [];
  private scheduled = false;

  constructor(private readonly max: number, private readonly send: (batch: T[]) => Promise<void>) {}

  /** Queues `item`; sent on the next turn of the event loop with the others queued by then. */
  add(item: T): void {
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue.splice(0, this.max);
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    void this.send(batch).catch(() => undefined);
  }
}
