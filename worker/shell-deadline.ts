/**
 * The shell guardian's dead man's deadline for one worker (worker/handlers/shell-guardian.ts):
 * how long the guardian may hear nothing from this worker before it SIGKILLs the worker's
 * running shell programs. A worker that stops acting (SIGSTOP, a blocked event loop) stops
 * renewing its leases, and a reaper elsewhere hands its tasks to another worker once a lease
 * runs out; the program must be gone before then, or attempt 2 starts beside it
 * (docs/engine.md "Work outside the worker process").
 */

/**
 * Kept between the deadline and the earliest reclaim (ms): the guardian checks once a second,
 * and the reaper compares the lease with its own machine's clock.
 */
export const SHELL_DEADLINE_MARGIN_MS = 3000;

/**
 * The shortest deadline given (ms): the worker says it is alive every second
 * (shell-guardian.ts ALIVE_EVERY_MS), and a timer a second late must not kill anything.
 */
export const SHELL_DEADLINE_MIN_MS = 2000;

/**
 * The deadline (ms from now) for the guardian, from what the worker knows now.
 * - `earliestLeaseEndMs`: when the first of its attempts' leases runs out (epoch ms, its clock;
 *   Runner.earliestLeaseEnd); none held: a full lease from now.
 * - `databaseDown`: the worker sees the database unreachable. No reaper reclaims before the
 *   database has been reachable for a full lease (docs/engine.md "Liveness"), so a worker that
 *   stalls during an outage has at least a lease from its last word, even though its leases
 *   could not be renewed.
 * The deadline is the lease end less SHELL_DEADLINE_MARGIN_MS (a quarter of the lease when that
 * is shorter), and never under SHELL_DEADLINE_MIN_MS.
 */
export function shellDeadlineMs(p: { nowMs: number; earliestLeaseEndMs: number | undefined; databaseDown: boolean; leaseSeconds: number }): number {
  const leaseMs = p.leaseSeconds * 1000;
  const margin = Math.min(SHELL_DEADLINE_MARGIN_MS, leaseMs / 4);
  let end = p.earliestLeaseEndMs ?? p.nowMs + leaseMs;
  if (p.databaseDown) end = Math.max(end, p.nowMs + leaseMs);
  return Math.max(SHELL_DEADLINE_MIN_MS, Math.floor(end - p.nowMs - margin));
}
