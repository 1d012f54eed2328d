import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { retryRunAs } from '@/lib/runs/run-actions';

export const dynamic = 'force-dynamic';

/** POST /api/v1/runs/:id/retry -> 201 the new run (trigger retry, parentRunId = :id) */
export const POST = rest({ operation: 'runs.retry', params: IdParams, resource: 'run', body: EmptyInput, status: 201 }, ({ db, params, actor, now }) =>
  retryRunAs(db, params.id, actor, now),
);
