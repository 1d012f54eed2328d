import { rest } from '@/app/_lib/rest';
import { listWorkers } from '@/lib/workers/list-workers';

export const dynamic = 'force-dynamic';

/** GET /api/v1/workers -> { items: WorkerView[] } */
export const GET = rest({ operation: 'workers.list' }, async ({ db, actor, now }) => listWorkers(db, actor, now));
