import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { cancelRunAs } from '@/lib/runs/run-actions';

export const dynamic = 'force-dynamic';

/** POST /api/v1/runs/:id/cancel -> run */
export const POST = rest({ operation: 'runs.cancel', params: IdParams, resource: 'run', body: EmptyInput }, ({ db, params, actor, now }) =>
  cancelRunAs(db, params.id, actor, now),
);
