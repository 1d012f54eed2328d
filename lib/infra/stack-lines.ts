/**
 * The lines `npm start`'s supervisor (scripts/start.ts) prints about what it runs and stops.
 * One rule for all of them: a line names only the parts running at that moment — no worker
 * with TICKFLOW_START_WORKER=0, no embedded database on DATABASE_URL, no console during a
 * start-up step — listed in the order a stop ends them (docs/operations.md "Stopping").
 */
import type { StopMode } from './stop-requests.ts';

/** What runs right now under the supervisor. */
export interface RunningParts {
  /** `next build` in progress (the worker builds inside the supervisor, in under a second) */
  build?: boolean;
  worker: boolean;
  console: boolean;
  embeddedDatabase: boolean;
}

/** The running parts in stop order: the console build first, then the worker (it drains), the console, the database. */
export function partsInStopOrder(running: RunningParts): string[] {
  return [
    running.build && 'the console build',
    running.worker && 'the worker',
    running.console && 'the console',
    running.embeddedDatabase && 'the embedded database',
  ].filter((p): p is string => Boolean(p));
}

/** "a", "a and b", "a, b and c". */
function listed(items: string[]): string {
  return items.length < 2 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The start-up line's note on Ctrl-C: what it stops. */
export function ctrlCStops(running: RunningParts): string {
  return `Ctrl-C stops ${listed(partsInStopOrder(running))}`;
}

/**
 * The first line of a stop: why, and what stops in which order. In 'drain' a running worker
 * is named first, finishing its running tasks; 'now' stops everything at once.
 */
export function stopBeginsLine(mode: StopMode, reason: string, running: RunningParts): string {
  const parts = partsInStopOrder(running);
  if (parts.length === 0) return `stopping (${reason})…`;
  if (mode === 'now') return `stopping now (${reason}): ${listed(parts)}…`;
  if (!running.worker) return `stopping (${reason}): ${listed(parts)}…`;
  // the console build ends before the worker starts: a running worker is first to stop
  const after = parts.filter((p) => p !== 'the worker');
  return `stopping (${reason}): the worker finishes its running tasks first${after.length ? `, then ${listed(after)} ${after.length === 1 ? 'stops' : 'stop'}` : ''}…`;
}
