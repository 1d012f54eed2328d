import { rest } from '@/app/_lib/rest';
import { IdParams, RollbackInput } from '@/lib/api/schemas';
import { rollbackJob } from '@/lib/jobs/rollback-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/rollback { version, reason?, expectedVersion? } -> job (new version, change_type rollback) */
export const POST = rest({ operation: 'jobs.rollback', params: IdParams, resource: 'job', body: RollbackInput }, ({ db, params, body, actor, now }) =>
  rollbackJob(db, params.id, body, actor, now),
);
