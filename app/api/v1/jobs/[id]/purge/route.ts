import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { purgeJob } from '@/lib/jobs/purge-job';

export const dynamic = 'force-dynamic';

const handler = rest({ operation: 'jobs.purge', params: IdParams, resource: 'job' }, async ({ db, params, actor }) => ({
  purged: true,
  ...(await purgeJob(db, params.id, actor)),
}));

/** DELETE (or POST) /api/v1/jobs/:id/purge -> { purged: true, id, key }; only for jobs in the recycle bin (else 409) */
export const DELETE = handler;
export const POST = handler;
