/**
 * When `npm start`'s supervisor (scripts/start.ts) restarts a process of the stack that ended
 * without being asked to — the worker, the console and the embedded PostgreSQL follow this one rule, the way a
 * process supervisor would: the first restart after 1 s, each next one after twice the delay, up
 * to 30 s; a process that ran for more than a minute before it ended starts again from 1 s. A
 * process that may give up (the embedded database, the console) does so after too many ends within a window:
 * the stack then stops and exits non-zero, and a service manager restarts it whole.
 */

export interface RestartRule {
  /** delay before the first restart (ms) */
  firstDelayMs: number;
  /** the delay doubles up to this (ms) */
  maxDelayMs: number;
  /** a process that ran longer than this before it ended restarts after `firstDelayMs` again (ms) */
  stableAfterMs: number;
  /** give up at the `ends`-th end within `withinMs`; without it, restart for ever */
  giveUp?: { ends: number; withinMs: number };
}

/** The supervisor's restarts: 1 s, doubling to 30 s, back to 1 s after a minute of uptime. */
export const SUPERVISED_RESTARTS: RestartRule = { firstDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 60_000 };

/**
 * The embedded PostgreSQL's restarts: the supervisor's, giving up at the 5th end within 10
 * minutes (a server that cannot stay up is a problem for an operator, not for more restarts).
 */
export const EMBEDDED_DATABASE_RESTARTS: RestartRule = { ...SUPERVISED_RESTARTS, giveUp: { ends: 5, withinMs: 10 * 60_000 } };

/**
 * The console's restarts: the embedded database's rule. A console that cannot stay up (its port
 * taken, a broken build) is for an operator to look at; one crash must not stop the scheduling.
 */
export const CONSOLE_RESTARTS: RestartRule = EMBEDDED_DATABASE_RESTARTS;

/** Restart after `delayMs`; or, set only under a rule with `giveUp`, do not: `giveUp` says why. */
export interface RestartDecision {
  delayMs: number;
  giveUp?: string;
}

/** "90 s", "10 min". */
function duration(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

/**
 * The restarts of one process under `rule`. Call `afterEnd(upMs)` each time the process ended
 * unexpectedly (or a restart of it failed), with how long it had run: it answers whether to
 * restart it and after how long, or why not.
 * @param now clock in epoch milliseconds (tests)
 */
export function createRestartSchedule(rule: RestartRule, now: () => number = Date.now): { afterEnd(upMs: number): RestartDecision } {
  let delayMs = rule.firstDelayMs;
  let ends: number[] = [];
  return {
    afterEnd(upMs) {
      const at = now();
      if (upMs > rule.stableAfterMs) delayMs = rule.firstDelayMs;
      if (rule.giveUp) {
        const { ends: limit, withinMs } = rule.giveUp;
        ends = [...ends.filter((t) => at - t < withinMs), at];
        if (ends.length >= limit) return { delayMs, giveUp: `${ends.length} times within ${duration(withinMs)}` };
      }
      const decision: RestartDecision = { delayMs };
      delayMs = Math.min(delayMs * 2, rule.maxDelayMs);
      return decision;
    },
  };
}
