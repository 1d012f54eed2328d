import { rest } from '@/app/_lib/rest';
import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { pauseJob } from '@/lib/jobs/pause-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/pause (optional { reason }) -> job */
export const POST = rest({ operation: 'jobs.pause', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  pauseJob(db, params.id, actor, parseOrThrow(ReasonInput, body), now),
);
