import { rest } from '@/app/_lib/rest';
import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { deleteJob } from '@/lib/jobs/delete-job';
import { getJob } from '@/lib/jobs/get-job';
import { updateJob } from '@/lib/jobs/update-job';

export const dynamic = 'force-dynamic';

/** GET /api/v1/jobs/:id -> job with steps, edges, nextFireTimes (deleted jobs too, with deletedAt) */
export const GET = rest({ operation: 'jobs.get', params: IdParams, resource: 'job' }, ({ db, params, actor, now }) => getJob(db, params.id, actor, now));

/** PATCH /api/v1/jobs/:id (UpdateJobInput: partial + expectedVersion) -> job; 409 with detail.changedFields on a stale version */
export const PATCH = rest({ operation: 'jobs.update', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  updateJob(db, params.id, body, actor, now),
);

/** DELETE /api/v1/jobs/:id (optional { reason }) -> job (soft delete into the recycle bin) */
export const DELETE = rest({ operation: 'jobs.delete', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  deleteJob(db, params.id, actor, parseOrThrow(ReasonInput, body), now),
);
