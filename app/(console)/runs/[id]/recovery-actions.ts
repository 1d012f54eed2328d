'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { IdParams } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { clearTaskAs, markTaskSuccessAs } from '@/lib/runs/task-recovery';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

// Operator doors onto lib/runs task-recovery (the same functions as POST
// /tasks/:id/mark-success and /tasks/:id/clear; docs/recovery.md).

/** "Mark success": a dead task becomes success with `reason` (required); downstream released. */
export async function markTaskSuccessAction(taskId: string, input: { reason?: string }): Promise<ActionResult<{ runId: string; status: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = IdParams.safeParse({ id: taskId });
    if (!p.success) return invalid(p.error);
    const run = await markTaskSuccessAs(getDb(), p.data.id, input, actor);
    revalidatePath(`/runs/${run.id}`);
    return { ok: true, data: { runId: run.id, status: run.status } };
  } catch (error) {
    return toActionError(error, 'Mark success');
  }
}

/** "Clear downstream": the task and everything downstream run again in the same run. */
export async function clearTaskAction(taskId: string, input: { reason?: string }): Promise<ActionResult<{ runId: string; status: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = IdParams.safeParse({ id: taskId });
    if (!p.success) return invalid(p.error);
    const run = await clearTaskAs(getDb(), p.data.id, input.reason ? input : {}, actor);
    revalidatePath(`/runs/${run.id}`);
    return { ok: true, data: { runId: run.id, status: run.status } };
  } catch (error) {
    return toActionError(error, 'Clear');
  }
}
