/**
 * Turns stop signals into stop requests, the rule every long-running Tickflow
 * process follows (docs/operations.md "Stopping"):
 *
 * - the first signal (SIGTERM, SIGINT or SIGHUP, whichever) asks for an orderly
 *   stop: drain, then exit 0;
 * - the same request delivered twice is one request: a terminal's Ctrl-C
 *   reaches every process of the foreground process group, and `npm` forwards
 *   it to its child as well, so a process started by npm sees SIGINT twice
 *   within a few milliseconds. Any signal within `duplicateMs` of the first is
 *   therefore ignored;
 * - a signal after that window asks to stop now (no drain).
 */
export type StopMode = 'drain' | 'now';

export interface StopRequestOptions {
  /** called once with 'drain', and at most once more with 'now' */
  onStop: (mode: StopMode, source: string) => void;
  /** a repeat within this many milliseconds of the first request is the same request (default 250) */
  duplicateMs?: number;
  /** clock in epoch milliseconds (tests) */
  now?: () => number;
}

/** Default window in which a repeated signal counts as the same delivery (ms). */
export const DUPLICATE_SIGNAL_MS = 250;

/**
 * Returns `request(source, mode?)`: call it for every signal or stop message.
 * `mode` 'now' (an explicit "stop at once", e.g. from a parent that counted
 * two signals itself) skips the duplicate window.
 */
export function createStopRequests(opts: StopRequestOptions): (source: string, mode?: StopMode) => void {
  const duplicateMs = opts.duplicateMs ?? DUPLICATE_SIGNAL_MS;
  const clock = opts.now ?? Date.now;
  let firstAt: number | undefined;
  let stoppingNow = false;
  return (source, mode = 'drain') => {
    if (stoppingNow) return;
    const at = clock();
    if (firstAt === undefined) {
      firstAt = at;
      if (mode === 'now') stoppingNow = true;
      opts.onStop(mode, source);
      return;
    }
    if (mode === 'drain' && at - firstAt < duplicateMs) return;
    stoppingNow = true;
    opts.onStop('now', source);
  };
}
