'use server';

import { actionArgs, defineAction, IdArg, objectArg } from '@/app/_actions/define-action';
import { parseOrThrow } from '@/lib/api/validation';
import { IdParams } from '@/lib/api/schemas';
import { clearTaskAs, markTaskSuccessAs } from '@/lib/runs/task-recovery';

// Operator doors onto lib/runs task-recovery (the same functions as POST
// /tasks/:id/mark-success and /tasks/:id/clear; docs/recovery.md).

/** "Mark success": a dead task becomes success with `reason` (required); downstream released. */
export const markTaskSuccessAction = defineAction(
  'tasks.markSuccess',
  'Mark success',
  actionArgs(['taskId', IdArg], ['input', objectArg<{ reason?: string }>()]), // parsed by lib/runs task-recovery, as POST /tasks/:id/mark-success does
  async ({ db, actor }, taskId: string, input: { reason?: string }) => {
    const run = await markTaskSuccessAs(db, parseOrThrow(IdParams, { id: taskId }).id, input, actor);
    return { runId: run.id, status: run.status };
  },
  { revalidate: (r) => [`/runs/${r.runId}`] },
);

/** "Clear downstream": the task and everything downstream run again in the same run. */
export const clearTaskAction = defineAction(
  'tasks.clear',
  'Clear',
  actionArgs(['taskId', IdArg], ['input', objectArg<{ reason?: string }>()]),
  async ({ db, actor }, taskId: string, input: { reason?: string }) => {
    const run = await clearTaskAs(db, parseOrThrow(IdParams, { id: taskId }).id, input?.reason ? input : {}, actor);
    return { runId: run.id, status: run.status };
  },
  { revalidate: (r) => [`/runs/${r.runId}`] },
);
