'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { IdParams } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { cancelRunAs, retryRunAs, retryTaskAs } from '@/lib/runs/run-actions';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

// Operator doors onto lib/runs run-actions (role check + 404, then lib/engine
// cancelRun / retryRun / retryTask) — the same functions the REST routes call.

/** "Cancel run": pending/running tasks become cancelled (lib/engine cancelRun). */
export async function cancelRunAction(runId: string): Promise<ActionResult<{ status: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = IdParams.safeParse({ id: runId });
    if (!p.success) return invalid(p.error);
    const run = await cancelRunAs(getDb(), p.data.id, actor);
    revalidatePath(`/runs/${runId}`);
    return { ok: true, data: { status: run.status } };
  } catch (error) {
    return toActionError(error, 'Cancel run');
  }
}

/** "Retry run": a NEW run (trigger retry, parent = this run) via lib/engine retryRun. Returns its id. */
export async function retryRunAction(runId: string): Promise<ActionResult<{ runId: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = IdParams.safeParse({ id: runId });
    if (!p.success) return invalid(p.error);
    const run = await retryRunAs(getDb(), p.data.id, actor);
    revalidatePath('/runs');
    return { ok: true, data: { runId: run.id } };
  } catch (error) {
    return toActionError(error, 'Retry run');
  }
}

/** "Retry task": re-opens a dead/cancelled/skipped task as a new attempt (lib/engine retryTask). */
export async function retryTaskAction(taskId: string): Promise<ActionResult<{ status: string }>> {
  try {
    const actor = await requireActionActor('operator');
    const p = IdParams.safeParse({ id: taskId });
    if (!p.success) return invalid(p.error);
    const run = await retryTaskAs(getDb(), p.data.id, actor);
    revalidatePath(`/runs/${run.id}`);
    return { ok: true, data: { status: run.status } };
  } catch (error) {
    return toActionError(error, 'Retry task');
  }
}
