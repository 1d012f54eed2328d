import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import type { Run } from '../generated/prisma/client.ts';
import { isReadyPending, toRunSummary, toTaskView, type RunView, type TaskParent } from './run-view.ts';
import { handlerAvailability, tasksOutsideLiveRouting } from '../handlers/catalogue.ts';
import { purgedJobIds } from '../jobs/purged-job-ids.ts';

/**
 * A run with its tasks (ordered by creation then step key), each task's logs
 * (ordered by id = append order), parents and children (step key and edge type), and the retry chain
 * (ancestors via parent_run_id, this run, then retries of it), oldest first; a ready task whose handler
 * no live worker offers is marked (TaskView.noLiveWorker).
 * @throws DomainError('not_found') for an unknown or malformed id.
 */
export async function getRun(db: Db, id: string, actor: Actor): Promise<RunView> {
  requireCan(actor, 'read');
  const run = isUuid(id) ? await db.run.findUnique({ where: { id } }) : null;
  if (!run) throw new DomainError('not_found', `Run ${id} not found`);
  const [tasks, deps] = await Promise.all([
    db.task.findMany({ where: { runId: id, scheduledFor: run.scheduledFor }, orderBy: [{ createdAt: 'asc' }, { stepKey: 'asc' }] }),
    db.taskDependency.findMany({ where: { task: { runId: id }, scheduledFor: run.scheduledFor }, select: { taskId: true, parentTaskId: true, depType: true } }),
  ]);
  // By task (task_logs_task_idx), in the run's week: the logs carry their run's scheduled_for.
  const logs = tasks.length === 0 ? [] : await db.taskLog.findMany({
    where: { taskId: { in: tasks.map((t) => t.id) }, scheduledFor: run.scheduledFor },
    orderBy: { id: 'asc' },
  });
  const stepOf = new Map(tasks.map((t) => [t.id, t.stepKey]));
  const parents = new Map<string, TaskParent[]>();
  const children = new Map<string, TaskParent[]>();
  const add = (m: Map<string, TaskParent[]>, id: string, other: string, type: TaskParent['type']) => {
    const list = m.get(id) ?? [];
    list.push({ step: stepOf.get(other) ?? other, type });
    m.set(id, list);
  };
  for (const d of deps) {
    add(parents, d.taskId, d.parentTaskId, d.depType);
    add(children, d.parentTaskId, d.taskId, d.depType);
  }

  // Retry chain: walk up parent_run_id (bounded), then down through retries.
  const ancestors: Run[] = [];
  let cursor = run.parentRunId;
  for (let i = 0; cursor && i < 50; i++) {
    const p = await db.run.findUnique({ where: { id: cursor } });
    if (!p) break;
    ancestors.unshift(p);
    cursor = p.parentRunId;
  }
  const descendants: Run[] = [];
  let frontier = [run.id];
  for (let i = 0; frontier.length && i < 50; i++) {
    const kids = await db.run.findMany({ where: { parentRunId: { in: frontier } }, orderBy: { createdAt: 'asc' } });
    descendants.push(...kids);
    frontier = kids.map((k) => k.id);
  }

  // A ready task whose handler no live worker offers would wait without a word (no worker claims it);
  // so would one whose routing lets none of the live workers that offer it take it.
  const ready = tasks.filter(isReadyPending);
  const [offered, purged] = await Promise.all([
    handlerAvailability(db, [...new Set(ready.map((t) => t.handler))]),
    purgedJobIds(db, [run.jobId]),
  ]);
  const routed = ready.filter((t) => offered.get(t.handler)?.available && isRouted(t.routing));
  const outsideRouting = await tasksOutsideLiveRouting(db, run, routed.map((t) => t.id));
  // a retry chain never leaves its job (lib/engine/retry-run.ts gives the retry its run's job_id)
  const jobPurged = purged.has(run.jobId);
  const statusByStep = new Map<string, string>(tasks.map((t) => [t.stepKey, t.status]));

  return {
    ...toRunSummary(run, jobPurged),
    tasks: tasks.map((t) => toTaskView(t, logs.filter((l) => l.taskId === t.id), parents.get(t.id) ?? [], children.get(t.id) ?? [], offered, (step) => statusByStep.get(step), outsideRouting)),
    retryChain: [...ancestors, run, ...descendants].map((r) => toRunSummary(r, jobPurged)),
  };
}

/** True when a task's routing (tasks.routing, copied from its job: insert-runs.ts) restricts which workers may claim it. */
function isRouted(routing: unknown): boolean {
  if (!routing || typeof routing !== 'object') return false;
  const r = routing as { nodeGroup?: unknown; labels?: unknown; strategy?: unknown };
  const labels = r.labels && typeof r.labels === 'object' ? Object.keys(r.labels).length : 0;
  return r.nodeGroup != null || labels > 0 || (r.strategy != null && r.strategy !== 'any');
}
