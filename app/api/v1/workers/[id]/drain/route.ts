import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { drainWorker } from '@/lib/workers/drain-worker';

export const dynamic = 'force-dynamic';

/** POST /api/v1/workers/:id/drain -> worker (status draining) */
export const POST = rest({ role: 'operator', params: IdParams, operation: 'workers.drain' }, ({ db, params, actor, now }) =>
  drainWorker(db, params.id, actor, now),
);
