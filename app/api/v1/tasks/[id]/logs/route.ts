import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { listTaskLogLines } from '@/lib/task-logs/list-lines';
import { TaskLogLinesQuery } from '@/lib/task-logs/queries';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/tasks/:id/logs?attempt=&afterSeq=&limit= (any role) -> lib/task-logs TaskLogLinesPage:
 * `{ lines: [{ seq, time, level, stream, text, fields? }], nextAfterSeq, more, final, leaseReclaimed, progress, … }`
 * (keyset on seq; docs/task-logs.md).
 */
export const GET = rest({ operation: 'tasks.logs', params: IdParams, resource: 'task', queryParsedBy: TaskLogLinesQuery }, ({ db, params, query, actor }) => listTaskLogLines(db, params.id, query, actor));
