'use server';

import { IdParams } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { cancelRunAs, retryRunAs, retryTaskAs } from '@/lib/runs/run-actions';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

// Doors onto lib/runs run-actions (404, then lib/engine cancelRun / retryRun /
// retryTask) — the same functions the REST routes call.

/** "Cancel run": pending/running tasks become cancelled (lib/engine cancelRun). */
export const cancelRunAction = defineAction(
  'runs.cancel',
  'Cancel run',
  actionArgs(['runId', IdArg]),
  async ({ db, actor }, runId: string) => ({ status: (await cancelRunAs(db, parseOrThrow(IdParams, { id: runId }).id, actor)).status }),
  { revalidate: (_, [runId]) => [`/runs/${runId}`] },
);

/** "Retry run": a NEW run (trigger retry, parent = this run) via lib/engine retryRun. Returns its id. */
export const retryRunAction = defineAction(
  'runs.retry',
  'Retry run',
  actionArgs(['runId', IdArg]),
  async ({ db, actor }, runId: string) => ({ runId: (await retryRunAs(db, parseOrThrow(IdParams, { id: runId }).id, actor)).id }),
  { revalidate: () => ['/runs'] },
);

/** "Retry task": re-opens a dead/cancelled/skipped task as a new attempt (lib/engine retryTask). */
export const retryTaskAction = defineAction(
  'tasks.retry',
  'Retry task',
  actionArgs(['taskId', IdArg]),
  async ({ db, actor }, taskId: string) => {
    const run = await retryTaskAs(db, parseOrThrow(IdParams, { id: taskId }).id, actor);
    return { status: run.status, runId: run.id };
  },
  { revalidate: (r) => [`/runs/${r.runId}`] },
);
