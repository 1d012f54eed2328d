import { rest } from '@/app/_lib/rest';
import { EmptyInput, WorkerIdParams } from '@/lib/api/schemas';
import { resumeWorker } from '@/lib/workers/drain-worker';

export const dynamic = 'force-dynamic';

/** POST /api/v1/workers/:id/resume -> worker (status online): undoes a drain */
export const POST = rest({ operation: 'workers.resume', params: WorkerIdParams, resource: 'worker', body: EmptyInput }, ({ db, params, actor, now }) => resumeWorker(db, params.id, actor, now));
