import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { markTaskSuccessAs } from '@/lib/runs/task-recovery';

export const dynamic = 'force-dynamic';

/** POST /api/v1/tasks/:id/mark-success { reason } -> the task's run (docs/recovery.md) */
export const POST = rest({ operation: 'tasks.markSuccess', params: IdParams, resource: 'task' }, ({ db, params, body, actor, now }) =>
  markTaskSuccessAs(db, params.id, body, actor, now),
);
