import { rest } from '@/app/_lib/rest';
import { listRuns } from '@/lib/runs/list-runs';

export const dynamic = 'force-dynamic';

/** GET /api/v1/runs?jobId=&status=&trigger=&from=&to=&limit=&cursor= -> { items, nextCursor } (scheduledFor desc, id desc) */
export const GET = rest({ operation: 'runs.list' }, ({ db, query, actor }) => listRuns(db, query, actor));
