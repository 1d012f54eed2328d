/**
 * Login rate limiting: at most LOGIN_MAX_FAILURES failed logins per (email, IP)
 * in a sliding LOGIN_WINDOW_MS window; the next attempt is refused with 429
 * until the oldest failure ages out. A successful login clears the counter.
 *
 * Kept in memory (per console process): the console runs as one process, the
 * window is short, and a restart forgetting the counters is harmless. Several
 * console replicas would each allow 5 — acceptable for a self-hosted console.
 */
export const LOGIN_MAX_FAILURES = 5;
export const LOGIN_WINDOW_MS = 15 * 60 * 1000;

export class LoginRateLimiter {
  private failures = new Map<string, number[]>();
  constructor(readonly maxFailures = LOGIN_MAX_FAILURES, readonly windowMs = LOGIN_WINDOW_MS) {}

  private key(email: string, ip: string): string {
    return `${email.trim().toLowerCase()}|${ip}`;
  }

  private recent(key: string, now: Date): number[] {
    const cutoff = now.getTime() - this.windowMs;
    const list = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (list.length) this.failures.set(key, list);
    else this.failures.delete(key);
    return list;
  }

  /** Seconds until another attempt is allowed, or 0 when allowed now. */
  retryAfterSeconds(email: string, ip: string, now = new Date()): number {
    const list = this.recent(this.key(email, ip), now);
    if (list.length < this.maxFailures) return 0;
    return Math.max(1, Math.ceil((list[0]! + this.windowMs - now.getTime()) / 1000));
  }

  recordFailure(email: string, ip: string, now = new Date()): void {
    const key = this.key(email, ip);
    const list = this.recent(key, now);
    list.push(now.getTime());
    this.failures.set(key, list);
    if (this.failures.size > 50_000) this.failures.delete(this.failures.keys().next().value!);
  }

  reset(email: string, ip: string): void {
    this.failures.delete(this.key(email, ip));
  }
}

const g = globalThis as unknown as { tickflowLoginLimiter?: LoginRateLimiter };
/** The process-wide limiter (survives Next dev reloads). */
export function loginLimiter(): LoginRateLimiter {
  g.tickflowLoginLimiter ??= new LoginRateLimiter();
  return g.tickflowLoginLimiter;
}
