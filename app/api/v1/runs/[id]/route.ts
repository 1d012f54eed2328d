import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { getRun } from '@/lib/runs/get-run';

export const dynamic = 'force-dynamic';

/** GET /api/v1/runs/:id -> run with tasks[].logs and retryChain */
export const GET = rest({ operation: 'runs.get', params: IdParams, resource: 'run' }, ({ db, params, actor }) => getRun(db, params.id, actor));
