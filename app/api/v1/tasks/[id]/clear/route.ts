import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { clearTaskAs } from '@/lib/runs/task-recovery';

export const dynamic = 'force-dynamic';

/** POST /api/v1/tasks/:id/clear { reason? } -> the task's run (docs/recovery.md) */
export const POST = rest({ operation: 'tasks.clear', params: IdParams, resource: 'task' }, ({ db, params, body, actor, now }) =>
  clearTaskAs(db, params.id, body, actor, now),
);
