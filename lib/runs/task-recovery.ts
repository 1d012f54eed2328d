/**
 * Task recovery actions for both doors (docs/recovery.md): role check
 * (operator and above), input check, then the engine's markTaskSuccess /
 * clearTask (lib/engine owns every state change), then the fresh run.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { ClearTaskInput, MarkSuccessInput } from '../api/recovery-schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { clearTask, markTaskSuccess } from '../engine/index.ts';
import { getRun } from './get-run.ts';
import { assertMayRerunTasksOf } from './run-actions.ts';
import type { RunView } from './run-view.ts';

async function mustTask(db: Db, taskId: string): Promise<{ runId: string }> {
  const task = isUuid(taskId) ? await db.task.findUnique({ where: { id: taskId }, select: { id: true, runId: true } }) : null;
  if (!task) throw new DomainError('not_found', `Task ${taskId} not found`);
  return task;
}

/**
 * Marks a dead task success with `{ reason }` (required); downstream is
 * released and the run re-evaluated. Returns the task's run.
 * @throws DomainError forbidden (viewer), validation (reason), not_found, conflict (task not dead).
 */
export async function markTaskSuccessAs(db: Db, taskId: string, raw: unknown, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  const input = parseOrThrow(MarkSuccessInput, raw ?? {});
  // the tasks downstream of it run with the command their run was created with
  await mustTask(db, taskId);
  await assertMayRerunTasksOf(db, taskId, actor, { taskRuns: false });
  const r = await markTaskSuccess(db, { taskId, actor: actor.name, reason: input.reason }, now);
  return getRun(db, r.runId, actor);
}

/**
 * Clears a finished task and everything downstream of it (`{ reason? }`):
 * they run again in the same run. Returns the task's run.
 * @throws DomainError forbidden (viewer), validation (reason), not_found, conflict.
 */
export async function clearTaskAs(db: Db, taskId: string, raw: unknown, actor: Actor, now = new Date()): Promise<RunView> {
  requireCan(actor, 'runs.write');
  const input = parseOrThrow(ClearTaskInput, raw ?? {});
  // the cleared tasks run again with the command their run was created with
  await mustTask(db, taskId);
  await assertMayRerunTasksOf(db, taskId, actor, { taskRuns: true });
  const r = await clearTask(db, { taskId, actor: actor.name, reason: input.reason ?? null }, now);
  return getRun(db, r.runId, actor);
}
