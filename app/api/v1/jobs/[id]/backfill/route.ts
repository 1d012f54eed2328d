import { respond, rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { backfillJob } from '@/lib/jobs/backfill-job';

export const dynamic = 'force-dynamic';

/**
 * POST /api/v1/jobs/:id/backfill { from, to, reason? } -> 201 { slots, create, skip, runIds } (docs/recovery.md);
 * 200 when every slot already had its run and none was created (RFC 9110 §15.3.2: 201 means something was created).
 */
export const POST = rest({ operation: 'jobs.backfill', params: IdParams, resource: 'job' }, async ({ db, params, body, actor, now }) => {
  const r = await backfillJob(db, params.id, body, actor, now);
  return respond(r.runIds.length > 0 ? 201 : 200, r);
});
