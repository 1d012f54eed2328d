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
import { releasedCount, releaseJoinTasks } from './sql/release-joins.ts';
import { selectUnpropagatedSuccesses } from './sql/select-stranded-runs.ts';

/**
 * Ends the run if every task is final (finalise-run.ts); when nothing can make progress, first
 * releases the join tasks whose parents have all ended (releaseWaitingJoins), then skips the
 * on_failure children of successes whose skip is not recorded yet (skipUnpropagatedOnFailure), then resolves a true deadlock; releases the job's next queued
 * serial_execution run when the run ended. Returns the run's final status, or null while it is
 * still open.
 *
 * The caller holds the run row FOR UPDATE (lock-order.ts: completions, cancel and cover_early
 * lock it before any task row, a new run is not visible to anyone else), so no completion of
 * the run is in flight: the ones that share the run (a worker's DAG batches, complete-dag-tasks.ts)
 * have committed or wait. The run lock was taken by an earlier statement, so the finalise
 * statement takes a fresh READ COMMITTED snapshot that includes every earlier holder's commit.
 */
export async function finishRunIfDone(tx: SqlClient, runId: string, now: Date, carry?: StatsCarry): Promise<string | null> {
  const stats = carry?.stats;
  if (carry) carry.stats = undefined; // booked by this statement
  let result = await finaliseRun(tx, { runId, stats }, now);
  if (result.open && result.stalled && (await releaseWaitingJoins(tx, runId, now))) {
    result = await finaliseRun(tx, { runId }, now);
  }
  if (result.open && result.stalled && (await skipUnpropagatedOnFailure(tx, runId, now))) {
    result = await finaliseRun(tx, { runId }, now);
  }
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

/**
 * Skips by design the pending on_failure children of the run's successful tasks (propagate-final.ts),
 * whose skip the success's own settling has not recorded yet: another batch's settling transaction
 * still to come (complete-task.ts settleDagBatch), or a worker that died before it. Such a child
 * is open and can never become ready, so without this the run would look deadlocked and end
 * failed although every task it needs succeeded. Only called for a stalled run, under its lock.
 * @returns whether any child was skipped
 */
async function skipUnpropagatedOnFailure(tx: SqlClient, runId: string, now: Date): Promise<boolean> {
  const [run] = await tx.$queryRawUnsafe<{ scheduledFor: Date }[]>(
    `SELECT scheduled_for AS "scheduledFor" FROM runs WHERE id = $1::uuid`, runId);
  if (!run) return false;
  const parents = await selectUnpropagatedSuccesses(tx, { runId, scheduledFor: run.scheduledFor });
  if (parents.length === 0) return false;
  await propagateFinal(tx, { parentIds: parents, edgeTypes: ['on_failure'] }, now);
  return true;
}

/**
 * Releases the run's join tasks whose parents have all ended as their edges ask
 * (release-joins.ts), which the release after their last parent's end has not done: a worker
 * that died between a batch's commit and that release (complete-task.ts releaseJoinsAfterBatch).
 * Such a task can become ready, so without this the run would look deadlocked. Only called for
 * a stalled run, under its lock. @returns whether any task was released
 */
async function releaseWaitingJoins(tx: SqlClient, runId: string, now: Date): Promise<boolean> {
  const [run] = await tx.$queryRawUnsafe<{ scheduledFor: Date }[]>(
    `SELECT scheduled_for AS "scheduledFor" FROM runs WHERE id = $1::uuid`, runId);
  if (!run) return false;
  return releasedCount(await releaseJoinTasks(tx, { runId, week: run.scheduledFor }, now)) > 0;
}

/** A handler-stats delta waiting for the transaction's last statement to carry it. */
export interface StatsCarry {
  stats?: StatsDelta;
}

/**
 * DAG propagation from one task that just became final, then run completion.
 * `handledEdgeTypes`: edge types whose children the caller already updated
 * (finish-attempt decrements the hard/soft children of a success that have no other parent,
 * and the caller releases its join children: release-joins.ts).
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
