/**
 * Operator actions on runs and tasks for both doors: role check, 404 for
 * unknown ids, then ENGINE's cancelRun / retryRun / retryTask (lib/engine owns
 * every state change), then the fresh read model.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { cancelRun, retryRun, retryTask } from '../engine/index.ts';
import { assertMayChangeCommand, type JobCommand } from '../jobs/handler-permissions.ts';
import { edgeView, routingView, stepView } from '../jobs/job-view.ts';
import { findJob, loadGraph } from '../jobs/store.ts';
import { getRun } from './get-run.ts';
import type { RunView } from './run-view.ts';
import { objectOrEmpty } from '../json-object.ts';

async function mustRun(db: Db, id: string) {
  const run = isUuid(id) ? await db.run.findUnique({ where: { id }, select: { id: true } }) : null;
  if (!run) throw new DomainError('not_found', `Run ${id} not found`);
}

/** Cancels a pending/running run (its pending/running tasks become cancelled). Returns the run. */
export async function cancelRunAs(db: Db, runId: string, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  await mustRun(db, runId);
  await cancelRun(db, runId, actor.name, now);
  return getRun(db, runId, actor);
}

/**
 * Retries a finished run as a NEW run (trigger `retry`, parent_run_id = this run). Returns the new run.
 * The new run merges the old run's payload override (its params) over the job's CURRENT command, so
 * the override is judged again as a Run now override would be (lib/jobs/handler-permissions.ts),
 * under the job lock: an operator may not retry an admin's override of a privileged command, nor
 * their own override of a job an admin has since made privileged.
 * @throws DomainError forbidden (viewer; an override the actor may not make, field `payload`), not_found, conflict.
 */
export async function retryRunAs(db: Db, runId: string, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  await mustRun(db, runId);
  const authorize = async (tx: Db, run: { jobId: string; params: unknown }) => {
    const job = await findJob(tx, run.jobId, 'allow');
    const views = (await loadGraph(tx, job)).steps.map(stepView);
    const base = job.payload ?? {};
    assertMayChangeCommand(actor, { steps: views, jobPayload: base }, { steps: views, jobPayload: base, runPayload: run.params ?? {} }, {
      fieldOf: () => 'payload',
      what: 'retry with its payload override a run of',
    });
  };
  const r = (await retryRun(db, runId, actor.name, now, { authorize })) as unknown;
  const newId = extractRunId(r) ?? runId;
  return getRun(db, newId, actor);
}

/**
 * Refuses to run the task `taskId` and the tasks downstream of it again (retry, clear, and the
 * children a mark success releases) for an actor who could not set the command those tasks keep. A task keeps the handler, payload (job <
 * step < the run's override, lib/engine/sql/insert-runs.ts), config and routing its run was created
 * with, so running it again runs that command, not the job's current one: an operator must not get
 * back, one task at a time, an admin's override, or a privileged command the admin has since changed
 * or moved to other hosts (the rollback assertMayChangeCommand refuses). Judged as a change from the
 * job's current command (each step's payload merged over the job payload, the job's routing) to the
 * run's; when they are the same it passes whoever asks. Retrying the whole run (retryRunAs) runs the
 * current command instead. Tasks are frozen at the run's creation, so no lock is needed.
 * @param opts.taskRuns whether the task itself runs again (not the one a mark success marks: only its downstream runs)
 * @throws DomainError('forbidden') naming the handler, field `task`.
 */
export async function assertMayRerunTasksOf(db: Db, taskId: string, actor: Actor, opts: { taskRuns: boolean }): Promise<void> {
  const task = await db.task.findUnique({ where: { id: taskId }, select: { runId: true } });
  if (!task) return;
  const run = await db.run.findUnique({ where: { id: task.runId }, select: { jobId: true } });
  if (!run) return;
  const all = await db.task.findMany({ where: { runId: task.runId }, select: { id: true, stepKey: true, handler: true, payload: true, config: true, routing: true } });
  const keyOf = new Map(all.map((t) => [t.id, t.stepKey]));
  // the edges between the run's tasks decide what runs as much as the steps (an on_failure child runs
  // only when its parent failed): the run's own, as its tasks keep them
  const deps = await db.taskDependency.findMany({ where: { taskId: { in: all.map((t) => t.id) } }, select: { taskId: true, parentTaskId: true, depType: true } });
  // What the action may run again: the task (unless it is the one a mark success marks) and
  // everything downstream of it, a superset of what retry, clear and mark success re-open
  // (lib/engine/run-graph.ts). The run's other tasks do not run again, whatever they keep.
  const childrenOf = new Map<string, string[]>();
  for (const d of deps) childrenOf.set(d.parentTaskId, [...(childrenOf.get(d.parentTaskId) ?? []), d.taskId]);
  const again = new Set(opts.taskRuns ? [taskId] : []);
  const queue = [taskId];
  while (queue.length) {
    for (const child of childrenOf.get(queue.shift()!) ?? []) if (!again.has(child)) { again.add(child); queue.push(child); }
  }
  const tasks = all.filter((t) => again.has(t.id));
  if (tasks.length === 0) return;
  const job = await db.job.findUnique({ where: { id: run.jobId } });
  // a job in the recycle bin or purged runs nothing again, for anyone: the engine answers 404 for it
  // (lib/engine/sql/lock-job-row.ts lockJobRowForReopen), with no command left to judge here
  if (!job || job.deletedAt) return;
  // the job's steps these tasks were made from (a step added since has no task here), and the
  // edges into them: the ones that decide whether and when they run
  const keys = new Set(tasks.map((t) => t.stepKey));
  const runKeys = new Set(all.map((t) => t.stepKey));
  const graph = await loadGraph(db, job);
  const current: JobCommand = {
    steps: graph.steps.map(stepView).filter((st) => keys.has(st.key))
      .map((st) => ({ key: st.key, handler: st.handler, payload: { ...obj(job.payload), ...obj(st.payload) }, config: st.config })),
    edges: graph.edges.map(edgeView).filter((e) => keys.has(e.to) && runKeys.has(e.from)),
    routing: routingOf(routingView(job)),
  };
  const frozen: JobCommand = {
    steps: tasks.map((t) => ({ key: t.stepKey, handler: t.handler, payload: t.payload, config: t.config })),
    edges: deps.filter((d) => again.has(d.taskId))
      .map((d) => ({ from: keyOf.get(d.parentTaskId) ?? d.parentTaskId, to: keyOf.get(d.taskId) ?? d.taskId, type: d.depType })),
    routing: routingOf(obj(tasks[0]?.routing)),
  };
  assertMayChangeCommand(actor, current, frozen, {
    fieldOf: () => 'task',
    what: 'run again (retry, clear or mark success) a task that keeps an override, or an older command or routing, of',
  });
}

const obj = objectOrEmpty;

/** A job's or a task's routing in one shape (a task copies the job's: insert-runs.ts), absent parts at their defaults. */
function routingOf(r: Record<string, unknown>): Record<string, unknown> {
  return { nodeGroup: r.nodeGroup ?? null, labels: obj(r.labels), strategy: r.strategy ?? 'any', nodes: Array.isArray(r.nodes) ? r.nodes : [], key: r.key ?? null };
}

/** Re-opens a failed/dead/cancelled/skipped task of a run (new attempt). Returns the task's run. */
export async function retryTaskAs(db: Db, taskId: string, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  const task = isUuid(taskId) ? await db.task.findUnique({ where: { id: taskId }, select: { runId: true } }) : null;
  if (!task) throw new DomainError('not_found', `Task ${taskId} not found`);
  await assertMayRerunTasksOf(db, taskId, actor, { taskRuns: true });
  await retryTask(db, taskId, actor.name, now);
  return getRun(db, task.runId, actor);
}

function extractRunId(r: unknown): string | null {
  if (!r || typeof r !== 'object') return null;
  const o = r as { id?: unknown; run?: { id?: unknown } };
  if (typeof o.run?.id === 'string') return o.run.id;
  if (typeof o.id === 'string') return o.id;
  return null;
}
