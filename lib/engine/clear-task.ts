import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { excludedBy, indexRunGraph, isFinal, openParentCount, recountOutside, reopenSet } from './run-graph.ts';
import { insertJobAudit } from './sql/insert-job-audit.ts';
import { loadRunGraph } from './sql/load-run-graph.ts';
import { withdrawAheadRun } from './cancel-ahead-runs.ts';
import { lockJobRowForReopen } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { reopenTasks, type ReopenRow } from './sql/reopen-tasks.ts';

/**
 * Operator "clear" of a task and everything downstream of it (docs/recovery.md),
 * in ONE transaction, locks in the engine's order (the run row, then its tasks:
 * lock-run.ts withTasks): the task and every descendant (over any edge type)
 * go back to `pending` in the same run — attempt + 1 for each one that had
 * started (a task that never ran keeps its attempt), parent counters
 * recomputed so they run again in DAG order; descendants another final parent
 * outside the cleared set still excludes keep their state. The run re-opens
 * (running, or pending if it never started), workers are notified, and a
 * job_audit row (action clear) records who, why and which steps.
 * @param now UTC instant (injectable clock)
 * @throws DomainError('not_found') unknown task; ('conflict') the task is not
 *   final, a task to clear is running, or the task's own parents exclude it.
 */
export async function clearTask(
  db: Db,
  p: { taskId: string; actor: string; reason?: string | null },
  now: Date = new Date(),
): Promise<{ taskId: string; runId: string; jobId: string; cleared: string[] }> {
  if (!UUID_RE.test(p.taskId)) throw new DomainError('not_found', `task ${p.taskId} not found`);
  return withEngineTransaction(db, async (tx) => {
    // The job row first (lock-order.ts): the run may re-open, which its triggers must see.
    await lockJobRowForReopen(tx, { taskId: p.taskId });
    const run = await lockRun(tx, { taskId: p.taskId, withTasks: true });
    if (!run) throw new DomainError('not_found', `task ${p.taskId} not found`);
    // A run created ahead of its slot is not active yet; the re-opened run comes first (cancel-ahead-runs.ts).
    await withdrawAheadRun(tx, { jobId: run.jobId, actor: p.actor, cause: `run ${run.id} re-opened by ${p.actor}`, exceptRunId: run.id }, now);
    const { tasks, edges } = await loadRunGraph(tx, { runId: run.id });
    const g = indexRunGraph(tasks, edges);
    const target = g.byId.get(p.taskId);
    if (!target) throw new DomainError('not_found', `task ${p.taskId} not found`);
    if (!isFinal(target.status)) {
      throw new DomainError('conflict', `task ${target.stepKey} is ${target.status}: only a finished task can be cleared`, undefined, { status: target.status });
    }
    const statusOf = (id: string) => g.byId.get(id)!.status;
    const set = reopenSet(g, p.taskId, () => true, statusOf);
    const running = [...set].map((id) => g.byId.get(id)!).filter((t) => t.status === 'running');
    if (running.length) {
      throw new DomainError('conflict', `task ${running[0].stepKey} downstream is running: wait for it or cancel the run before clearing`, undefined, { status: 'running' });
    }
    const own = excludedBy(g, p.taskId, set, statusOf);
    if (own.length) {
      const parent = g.byId.get(own[0].parentTaskId)!;
      throw new DomainError('conflict', `task ${target.stepKey} cannot run: parent ${parent.stepKey} ended ${parent.status} (${own[0].depType} edge); clear ${parent.stepKey} instead`);
    }
    const reason = p.reason ? `: ${p.reason}` : '';
    const rows: ReopenRow[] = [...set].map((id) => {
      const t = g.byId.get(id)!;
      return {
        id,
        pendingParents: openParentCount(g, id, set, statusOf),
        reopen: t.status !== 'pending',
        bump: t.status !== 'pending' && (id === p.taskId || t.started),
        message: id === p.taskId ? `cleared by ${p.actor}${reason}` : `cleared: downstream of ${target.stepKey}, by ${p.actor}`,
      };
    });
    // Open children outside the set that had counted a re-opened parent as done.
    for (const r of recountOutside(g, set, statusOf)) rows.push({ ...r, reopen: false, bump: false, message: '' });
    await reopenTasks(tx, { runId: run.id, rows, actor: p.actor }, now);
    const cleared = [...set].map((id) => g.byId.get(id)!.stepKey).sort();
    await insertJobAudit(tx, {
      jobId: run.jobId, action: 'clear', runId: run.id, taskId: p.taskId, actor: p.actor, reason: p.reason ?? null,
      detail: { stepKey: target.stepKey, fromStatus: target.status, cleared },
    }, now);
    return { taskId: p.taskId, runId: run.id, jobId: run.jobId, cleared };
  });
}
