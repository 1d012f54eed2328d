import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { loadRunGraph, type GraphTask } from './sql/load-run-graph.ts';
import { excludedBy, indexRunGraph, openParentCount, recountOutside, reopenSet } from './run-graph.ts';
import { withdrawAheadRun } from './cancel-ahead-runs.ts';
import { lockJobRowForReopen } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { reopenTasks, type ReopenRow } from './sql/reopen-tasks.ts';

/**
 * Operator retry of one task (docs/design.md §4 operator transitions dead | skipped |
 * cancelled -> pending): the task goes back to `pending` with attempt + 1 (one
 * more attempt even when its retries were used up), and every descendant that
 * was skipped or cancelled because of it is re-opened too (pending, attempt + 1
 * only if it had started), with pending_parents recomputed from the current
 * state of their parents (a re-opened parent counts as not yet done). A
 * descendant that another final parent still excludes stays as it is. Children
 * outside the set that are not final (waiting, or in an attempt) get their
 * counters raised back (run-graph.ts recountOutside). A
 * finished run goes back to `running` (or `pending` if it never started); when
 * it ends again it is booked on the job again.
 * @throws DomainError('not_found'); ('conflict') for a task that is pending,
 *   running, succeeded, skipped by design, or whose own parents still exclude it.
 */
export async function retryTask(db: Db, taskId: string, actor: string, now: Date = new Date()): Promise<{ taskId: string; runId: string; reopened: number }> {
  if (!UUID_RE.test(taskId)) throw new DomainError('not_found', `task ${taskId} not found`);
  return withEngineTransaction(db, async (tx) => {
    // The job row first (lock-order.ts): the run may re-open, which its triggers must see.
    await lockJobRowForReopen(tx, { taskId });
    const run = await lockRun(tx, { taskId, withTasks: true });
    if (!run) throw new DomainError('not_found', `task ${taskId} not found`);
    // A run created ahead of its slot is not active yet; the re-opened run comes first (cancel-ahead-runs.ts).
    await withdrawAheadRun(tx, { jobId: run.jobId, actor: actor, cause: `run ${run.id} re-opened by ${actor}`, exceptRunId: run.id }, now);
    const { tasks, edges } = await loadRunGraph(tx, { runId: run.id });
    const byId = new Map<string, GraphTask>(tasks.map((t) => [t.id, t]));
    const target = byId.get(taskId);
    if (!target) throw new DomainError('not_found', `task ${taskId} not found`);
    const retryable = ['dead', 'cancelled', 'failed', 'timeout'].includes(target.status) || (target.status === 'skipped' && target.error !== null);
    if (!retryable) {
      throw new DomainError('conflict', `task ${target.stepKey} is ${target.status}${target.status === 'skipped' ? ' by design' : ''}: only dead, cancelled or failure-skipped tasks can be retried`, undefined, { status: target.status });
    }
    // Re-open set: the target plus descendants reached through skipped/cancelled tasks, minus those
    // still excluded by a final parent outside the set (run-graph.ts reopenSet).
    const g = indexRunGraph(tasks, edges);
    const statusOf = (id: string) => g.byId.get(id)!.status;
    const set = reopenSet(g, taskId, (c) => c.status === 'skipped' || c.status === 'cancelled', statusOf);
    const own = excludedBy(g, taskId, set, statusOf);
    if (own.length > 0) {
      const p = byId.get(own[0].parentTaskId)!;
      throw new DomainError('conflict', `task ${target.stepKey} cannot run: parent ${p.stepKey} ended ${p.status} (${own[0].depType} edge); retry ${p.stepKey} instead`);
    }

    const rows: ReopenRow[] = [...set].map((id) => ({
      id,
      pendingParents: openParentCount(g, id, set, statusOf),
      reopen: true,
      bump: id === taskId || byId.get(id)!.started,
      message: id === taskId ? `retried by ${actor}` : `re-opened: retry of ${target.stepKey} by ${actor}`,
    }));
    // Open children outside the set that had counted a re-opened parent as done.
    for (const r of recountOutside(g, set, statusOf)) rows.push({ ...r, reopen: false, bump: false, message: '' });
    const reopened = await reopenTasks(tx, { runId: run.id, rows, actor }, now);
    return { taskId, runId: run.id, reopened };
  });
}
