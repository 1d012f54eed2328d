import { rest } from '@/app/_lib/rest';
import { listRuns } from '@/lib/runs/list-runs';
import { ListRunsQuery } from '@/lib/api/schemas';

export const dynamic = 'force-dynamic';

/** GET /api/v1/runs?jobId=&status=&trigger=&from=&to=&limit=&cursor= -> { items, nextCursor } (scheduledFor desc, id desc) */
export const GET = rest({ operation: 'runs.list', queryParsedBy: ListRunsQuery }, ({ db, query, actor }) => listRuns(db, query, actor));
