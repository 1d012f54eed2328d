/**
 * What happens after tasks become final, shared by completion, lease reclaim,
 * cancel and trigger (cover_early). Internal.
 */
import type { SqlClient } from '../db.ts';
import { finaliseRun } from './sql/finalise-run.ts';
import type { StatsDelta } from './sql/record-handler-stats.ts';
import { propagateFinal } from './sql/propagate-final.ts';
import { releaseSerialRun } from './sql/release-serial-run.ts';
import { resolveDeadlock } from './sql/resolve-deadlock.ts';

/**
 * Ends the run if every task is final (finalise-run.ts); resolves a deadlock
 * first when nothing can make progress; releases the job's next queued
 * serial_execution run when the run ended. Returns the run's final status, or
 * null while it is still open.
 *
 * The caller holds the run row (lock-order.ts: completions, cancel and
 * cover_early lock it before any task row, a new run is not visible to anyone
 * else). That serialises the completions of a run's tasks: two completions
 * that each end the last-but-one task would otherwise both see the other task
 * still running and neither would end the run. The run lock was taken by an
 * earlier statement, so the finalise statement takes a fresh READ COMMITTED
 * snapshot that includes the previous holder's commit.
 */
export async function finishRunIfDone(tx: SqlClient, runId: string, now: Date, carry?: StatsCarry): Promise<string | null> {
  const stats = carry?.stats;
  if (carry) carry.stats = undefined; // booked by this statement
  let result = await finaliseRun(tx, { runId, stats }, now);
  if (result.open && result.stalled) {
    const stuck = await resolveDeadlock(tx, { runId }, now);
    if (stuck.length === 0) return null; // queued behind a serial_execution gate, not a deadlock
    result = await finaliseRun(tx, { runId }, now);
  }
  if (result.status && result.jobId && result.mayRelease) {
    await releaseSerialRun(tx, { jobId: result.jobId }, now);
  }
  return result.status;
}

/** A handler-stats delta waiting for the transaction's last statement to carry it. */
export interface StatsCarry {
  stats?: StatsDelta;
}

/**
 * DAG propagation from one task that just became final, then run completion.
 * `handledEdgeTypes`: edge types whose children the caller already updated
 * (finish-attempt decrements the hard/soft children of a success).
 */
export async function settleFinalTask(
  tx: SqlClient,
  p: { taskId: string; runId: string; status: 'success' | 'dead' | 'cancelled' | 'skipped'; readyAlready: number; pendingOnFailure?: number },
  now: Date,
  carry?: StatsCarry,
): Promise<string | null> {
  let ready = p.readyAlready;
  if (p.status === 'success') {
    if ((p.pendingOnFailure ?? 0) > 0) {
      ready += (await propagateFinal(tx, { parentIds: [p.taskId], edgeTypes: ['on_failure'] }, now)).ready;
    }
  } else {
    ready += (await propagateFinal(tx, { parentIds: [p.taskId], edgeTypes: ['hard', 'soft', 'on_failure'] }, now)).ready;
  }
  // A task that became ready keeps the run open and live: no need to probe.
  if (ready > 0) return null;
  return finishRunIfDone(tx, p.runId, now, carry);
}
