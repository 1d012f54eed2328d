import { rest } from '@/app/_lib/rest';
import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { restoreJob } from '@/lib/jobs/restore-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/restore (optional { reason }) -> job */
export const POST = rest({ operation: 'jobs.restore', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  restoreJob(db, params.id, actor, parseOrThrow(ReasonInput, body), now),
);
