/**
 * Future instants (epoch ms) at which a service knows work becomes due — look-ahead runs and
 * retries announced by NOTIFY, or found by a safety pass — kept sorted and de-duplicated, so
 * the service sleeps until the earliest one instead of polling (docs/on-time.md).
 * Bounded: beyond `max` entries the latest are dropped (a safety pass finds them again).
 */
export class WakeTimes {
  private readonly at: number[] = [];

  constructor(private readonly max = 10_000) {}

  /** Adds an instant (epoch ms). */
  add(at: number): void {
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    if (this.at[lo] === at) return;
    this.at.splice(lo, 0, at);
    if (this.at.length > this.max) this.at.length = this.max;
  }

  /** Drops every instant <= `now` and returns the earliest one left (epoch ms), or null. */
  next(now: number): number | null {
    let n = 0;
    while (n < this.at.length && this.at[n]! <= now) n++;
    if (n > 0) this.at.splice(0, n);
    return this.at[0] ?? null;
  }

  get size(): number {
    return this.at.length;
  }
}
