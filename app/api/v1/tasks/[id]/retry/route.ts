import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { retryTaskAs } from '@/lib/runs/run-actions';

export const dynamic = 'force-dynamic';

/** POST /api/v1/tasks/:id/retry -> the task's run */
export const POST = rest({ operation: 'tasks.retry', params: IdParams, resource: 'task', body: EmptyInput }, ({ db, params, actor, now }) =>
  retryTaskAs(db, params.id, actor, now),
);
