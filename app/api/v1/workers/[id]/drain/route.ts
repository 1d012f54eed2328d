import { rest } from '@/app/_lib/rest';
import { DrainWorkerInput, WorkerIdParams } from '@/lib/api/schemas';
import { drainWorker } from '@/lib/workers/drain-worker';

export const dynamic = 'force-dynamic';

/** POST /api/v1/workers/:id/drain { confirmLastWorker? } -> worker (status draining); 409 detail.lastWorker for the last online worker */
export const POST = rest({ operation: 'workers.drain', params: WorkerIdParams, resource: 'worker', body: DrainWorkerInput }, ({ db, params, body, actor, now }) =>
  drainWorker(db, params.id, actor, now, { confirmLastWorker: body.confirmLastWorker }),
);
