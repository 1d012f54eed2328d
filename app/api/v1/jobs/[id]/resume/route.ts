import { rest } from '@/app/_lib/rest';
import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { resumeJob } from '@/lib/jobs/resume-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/resume (optional { reason }) -> job */
export const POST = rest({ operation: 'jobs.resume', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  resumeJob(db, params.id, actor, parseOrThrow(ReasonInput, body), now),
);
