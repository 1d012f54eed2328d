import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { purgeJob } from '@/lib/jobs/purge-job';

export const dynamic = 'force-dynamic';

const handler = rest({ operation: 'jobs.purge', params: IdParams, resource: 'job', body: EmptyInput }, async ({ db, params, actor }) => ({
  purged: true,
  ...(await purgeJob(db, params.id, actor)),
}));

/**
 * DELETE (or POST) /api/v1/jobs/:id/purge (no body, or `{}`: any field is a 400, a `reason` would not be recorded)
 * -> { purged: true, id, key }; only for jobs in the recycle bin (else 409)
 */
export const DELETE = handler;
export const POST = handler;
