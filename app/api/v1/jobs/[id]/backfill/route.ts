import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { backfillJob } from '@/lib/jobs/backfill-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/backfill { from, to, reason? } -> 201 { slots, create, skip, runIds } (docs/recovery.md) */
export const POST = rest({ operation: 'jobs.backfill', params: IdParams, resource: 'job', status: 201 }, ({ db, params, body, actor, now }) =>
  backfillJob(db, params.id, body, actor, now),
);
