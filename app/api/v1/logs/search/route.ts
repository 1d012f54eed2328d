import { rest } from '@/app/_lib/rest';
import { searchTaskLogLines } from '@/lib/task-logs/search-lines';
import { SearchTaskLogLinesQuery } from '@/lib/task-logs/queries';

export const dynamic = 'force-dynamic';

/**
 * GET /api/v1/logs/search?q=&jobId=&from=&to=&limit= (any role) -> `{ lines: [{ taskId, attempt,
 * stepKey, runId, jobId, jobKey, seq, time, level, stream, text, fields? }], more }`, newest first
 * (docs/task-logs.md).
 */
export const GET = rest({ operation: 'logs.search', queryParsedBy: SearchTaskLogLinesQuery }, ({ db, query, actor }) => searchTaskLogLines(db, query, actor));
