import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { previewBackfill } from '@/lib/jobs/backfill-job';

export const dynamic = 'force-dynamic';

/** POST /api/v1/jobs/:id/backfill/preview { from, to } -> { slots: [{ scheduledFor, action, runId? }], create, skip } (writes nothing) */
export const POST = rest({ operation: 'jobs.backfillPreview', params: IdParams, resource: 'job' }, ({ db, params, body, actor, now }) =>
  previewBackfill(db, params.id, body, actor, now),
);
