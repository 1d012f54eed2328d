import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { cancelRunAs } from '@/lib/runs/run-actions';

export const dynamic = 'force-dynamic';

/** POST /api/v1/runs/:id/cancel -> run */
export const POST = rest({ role: 'operator', params: IdParams, body: EmptyInput, operation: 'runs.cancel' }, ({ db, params, actor, now }) =>
  cancelRunAs(db, params.id, actor, now),
);
