import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { indexRunGraph, openParentCount, recountOutside, reopenSet } from './run-graph.ts';
import { finishRunIfDone } from './settle.ts';
import { insertJobAudit } from './sql/insert-job-audit.ts';
import { loadRunGraph } from './sql/load-run-graph.ts';
import { withdrawAheadRun } from './cancel-ahead-runs.ts';
import { lockJobRowForReopen } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { markTaskSuccessSql } from './sql/mark-task-success.ts';
import { propagateFinal } from './sql/propagate-final.ts';
import { assertJobHasNoOtherActiveRun, assertRunMayReopen, reopenTasks, type ReopenRow } from './sql/reopen-tasks.ts';

/** Task statuses an operator may mark success (docs/recovery.md); failed/timeout are transient but accepted. */
export const MARKABLE_STATUSES = ['dead', 'failed', 'timeout'] as const;

/**
 * Operator "mark success" of a failed task (docs/recovery.md), in ONE
 * transaction, locks in the engine's order (the run row, then its tasks:
 * lock-run.ts withTasks):
 * - the task: dead | failed | timeout -> success, with a task_logs row naming
 *   `actor` and `reason` (sql/mark-task-success.ts);
 * - downstream is released as if it had succeeded: descendants skipped because
 *   of its failure go back to pending with recomputed parent counters (those
 *   that another final parent still excludes stay skipped); on_failure children
 *   still waiting become skipped by design (propagate-final.ts);
 *   on_failure children that already ran are left as they are;
 * - the run is re-opened and re-evaluated (finalise-run.ts): it may end success;
 * - a job_audit row (action mark_success).
 * Handler stats (handler_stats_daily) are not touched: they count what the
 * handler did, and it failed. Job counters follow the re-finished run, the
 * same rule as an operator retry.
 * @param now UTC instant (injectable clock)
 * @throws DomainError('not_found') unknown task; ('conflict') task not in a markable status.
 */
export async function markTaskSuccess(
  db: Db,
  p: { taskId: string; actor: string; reason: string },
  now: Date = new Date(),
): Promise<{ taskId: string; runId: string; jobId: string; reopened: number; runStatus: string }> {
  if (!UUID_RE.test(p.taskId)) throw new DomainError('not_found', `task ${p.taskId} not found`);
  return withEngineTransaction(db, async (tx) => {
    // The job row first (lock-order.ts): the run may re-open, which its triggers must see.
    await lockJobRowForReopen(tx, { taskId: p.taskId });
    const run = await lockRun(tx, { taskId: p.taskId, withTasks: true });
    if (!run) throw new DomainError('not_found', `task ${p.taskId} not found`);
    const task = await tx.task.findUnique({ where: { id: p.taskId }, select: { status: true, attempt: true, stepKey: true } });
    if (!task) throw new DomainError('not_found', `task ${p.taskId} not found`);
    if (!(MARKABLE_STATUSES as readonly string[]).includes(task.status)) {
      throw new DomainError('conflict', `task ${task.stepKey} is ${task.status}: only a dead (failed or timed out) task can be marked success`, undefined, { status: task.status });
    }
    // a run whose slot's work goes on elsewhere is not re-opened, even with nothing downstream
    await assertRunMayReopen(tx, run.id);
    const runEnded = run.status !== 'pending' && run.status !== 'running';
    const from = task.status;
    await markTaskSuccessSql(tx, { taskId: p.taskId, runId: run.id, from, attempt: task.attempt, actor: p.actor, reason: p.reason }, now);
    // on_failure children that have not started yet: their branch is no longer taken.
    await propagateFinal(tx, { parentIds: [p.taskId], edgeTypes: ['on_failure'] }, now);

    const { tasks, edges } = await loadRunGraph(tx, { runId: run.id });
    const g = indexRunGraph(tasks, edges);
    const statusOf = (id: string) => g.byId.get(id)!.status;
    const set = reopenSet(g, p.taskId, (t) => t.status === 'skipped' && t.error !== null, statusOf);
    set.delete(p.taskId);
    const withRoot = new Set([...set]);
    const rows: ReopenRow[] = [...set].map((id) => ({
      id,
      pendingParents: openParentCount(g, id, withRoot, statusOf),
      reopen: true,
      bump: g.byId.get(id)!.started,
      message: `re-opened: ${task.stepKey} marked success by ${p.actor}`,
    }));
    // Open tasks outside the set that had counted a re-opened parent as done.
    for (const r of recountOutside(g, withRoot, statusOf)) rows.push({ ...r, reopen: false, bump: false, message: '' });
    if (rows.length > 0) {
      // The run goes on: a run created ahead of its slot is not active yet and gives way
      // (cancel-ahead-runs.ts; none exists while this run is still open); any other active run
      // of the job refuses the re-open of a run that had ended (one run at a time).
      await withdrawAheadRun(tx, { jobId: run.jobId, actor: p.actor, cause: `run ${run.id} re-opened by ${p.actor}`, exceptRunId: run.id }, now);
      if (runEnded) await assertJobHasNoOtherActiveRun(tx, run.id, { ended: true });
    }
    const reopened = rows.length ? await reopenTasks(tx, { runId: run.id, rows, actor: p.actor }, now) : 0;
    const final = await finishRunIfDone(tx, run.id, now);
    await insertJobAudit(tx, {
      jobId: run.jobId, action: 'mark_success', runId: run.id, taskId: p.taskId, actor: p.actor, reason: p.reason,
      detail: { stepKey: task.stepKey, fromStatus: from, attempt: task.attempt, reopened, runStatus: final ?? 'running' },
    }, now);
    const status = final ?? (await tx.run.findUniqueOrThrow({ where: { id: run.id }, select: { status: true } })).status;
    return { taskId: p.taskId, runId: run.id, jobId: run.jobId, reopened, runStatus: status };
  });
}
