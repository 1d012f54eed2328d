import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { saveDag } from '@/lib/jobs/save-dag';

export const dynamic = 'force-dynamic';

/** PUT /api/v1/jobs/:id/dag { steps, edges, expectedVersion?, reason? } -> job (new version) */
export const PUT = rest({ operation: 'jobs.saveDag', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  saveDag(db, params.id, body, actor, now),
);
