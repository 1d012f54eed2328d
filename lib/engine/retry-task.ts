import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { loadRunGraph, type GraphEdge, type GraphTask } from './sql/load-run-graph.ts';
import { withdrawAheadRun } from './cancel-ahead-runs.ts';
import { lockJobRowForReopen } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { reopenTasks, type ReopenRow } from './sql/reopen-tasks.ts';

const FINAL = new Set(['success', 'dead', 'cancelled', 'skipped']);

/** Whether a final parent's status forces the child over this edge to be skipped (propagate-final.ts table). */
function forcesSkip(parentStatus: string, depType: GraphEdge['depType']): boolean {
  if (depType === 'hard') return parentStatus !== 'success';
  if (depType === 'on_failure') return parentStatus !== 'dead';
  return false;
}

/**
 * Operator retry of one task (docs/design.md §4 operator transitions dead | skipped |
 * cancelled -> pending): the task goes back to `pending` with attempt + 1 (one
 * more attempt even when its retries were used up), and every descendant that
 * was skipped or cancelled because of it is re-opened too (pending, attempt + 1
 * only if it had started), with pending_parents recomputed from the current
 * state of their parents (a re-opened parent counts as not yet done). A
 * descendant that another final parent still excludes stays as it is. Pending
 * children waiting on re-opened tasks get their counters raised back. A
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
    const children = new Map<string, GraphEdge[]>();
    const parents = new Map<string, GraphEdge[]>();
    for (const e of edges) {
      (children.get(e.parentTaskId) ?? children.set(e.parentTaskId, []).get(e.parentTaskId)!).push(e);
      (parents.get(e.taskId) ?? parents.set(e.taskId, []).get(e.taskId)!).push(e);
    }
    const blockers = (id: string, set: Set<string>) =>
      (parents.get(id) ?? []).filter((e) => !set.has(e.parentTaskId) && FINAL.has(byId.get(e.parentTaskId)!.status) && forcesSkip(byId.get(e.parentTaskId)!.status, e.depType));

    // Re-open set: the target plus descendants reached through skipped/cancelled tasks,
    // minus those still excluded by a final parent outside the set (iterate to a fixed point).
    const excluded = new Set<string>();
    let set = new Set<string>();
    for (;;) {
      set = new Set([taskId]);
      const queue = [taskId];
      while (queue.length) {
        const id = queue.shift()!;
        for (const e of children.get(id) ?? []) {
          const c = byId.get(e.taskId)!;
          if (!set.has(c.id) && !excluded.has(c.id) && (c.status === 'skipped' || c.status === 'cancelled')) {
            set.add(c.id);
            queue.push(c.id);
          }
        }
      }
      const bad = [...set].filter((id) => id !== taskId && blockers(id, set).length > 0);
      if (bad.length === 0) break;
      for (const id of bad) excluded.add(id);
    }
    const own = blockers(taskId, set);
    if (own.length > 0) {
      const p = byId.get(own[0].parentTaskId)!;
      throw new DomainError('conflict', `task ${target.stepKey} cannot run: parent ${p.stepKey} ended ${p.status} (${own[0].depType} edge); retry ${p.stepKey} instead`);
    }

    const counter = (id: string) =>
      (parents.get(id) ?? []).filter((e) => set.has(e.parentTaskId) || !FINAL.has(byId.get(e.parentTaskId)!.status)).length;
    const rows: ReopenRow[] = [...set].map((id) => ({
      id,
      pendingParents: counter(id),
      reopen: true,
      bump: id === taskId || byId.get(id)!.started,
      message: id === taskId ? `retried by ${actor}` : `re-opened: retry of ${target.stepKey} by ${actor}`,
    }));
    // Pending children outside the set that had counted a re-opened parent as done.
    const waiting = new Set<string>();
    for (const id of set) for (const e of children.get(id) ?? []) if (!set.has(e.taskId) && byId.get(e.taskId)!.status === 'pending') waiting.add(e.taskId);
    for (const id of waiting) {
      const n = counter(id);
      if (n !== byId.get(id)!.pendingParents) rows.push({ id, pendingParents: n, reopen: false, bump: false, message: '' });
    }
    const reopened = await reopenTasks(tx, { runId: run.id, rows, actor }, now);
    return { taskId, runId: run.id, reopened };
  });
}
