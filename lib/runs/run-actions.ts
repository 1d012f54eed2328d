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
import { assertMayChangeCommand } from '../jobs/handler-permissions.ts';
import { stepView } from '../jobs/job-view.ts';
import { findJob, loadGraph } from '../jobs/store.ts';
import { getRun } from './get-run.ts';
import type { RunView } from './run-view.ts';

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
 * Refuses to run a task of `runId` again (retry, clear) for an actor who could not have sent that
 * run's payload override: its tasks keep the payload the override made (a one-off command an admin
 * gave a shell job), so running one again is that override again (lib/jobs/handler-permissions.ts).
 * Tasks are frozen at the run's creation, so no lock is needed.
 * @throws DomainError('forbidden') naming the handler, field `payload`.
 */
export async function assertMayRerunTasksOf(db: Db, runId: string, actor: Actor): Promise<void> {
  const run = await db.run.findUnique({ where: { id: runId }, select: { params: true } });
  const params = run?.params && typeof run.params === 'object' && !Array.isArray(run.params) ? (run.params as Record<string, unknown>) : {};
  if (Object.keys(params).length === 0) return;
  const tasks = await db.task.findMany({ where: { runId }, select: { stepKey: true, handler: true, payload: true, config: true } });
  const steps = tasks.map((t) => ({ key: t.stepKey, handler: t.handler, payload: t.payload, config: t.config }));
  assertMayChangeCommand(actor, { steps }, { steps, runPayload: params }, { fieldOf: () => 'payload', what: 'rerun with its payload override a task of' });
}

/** Re-opens a failed/dead/cancelled/skipped task of a run (new attempt). Returns the task's run. */
export async function retryTaskAs(db: Db, taskId: string, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  const task = isUuid(taskId) ? await db.task.findUnique({ where: { id: taskId }, select: { runId: true } }) : null;
  if (!task) throw new DomainError('not_found', `Task ${taskId} not found`);
  await assertMayRerunTasksOf(db, task.runId, actor);
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
