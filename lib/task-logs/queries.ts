/**
 * Query schemas of the task log line routes (docs/task-logs.md), shared by the REST
 * routes, the OpenAPI document and the domain functions. Errors name the field.
 */
import { z } from 'zod';
import { Instant, objectId, queryInt, str } from '../api/schemas.ts';
import { NO_TRIGRAM_MESSAGE, searchTextHasTrigram } from '../api/like.ts';

export { searchTextHasTrigram };

/** Most lines one page of GET /tasks/:id/logs returns. */
export const MAX_LOG_PAGE = 1000;
/**
 * Most bytes of stored text and fields one page of GET /tasks/:id/logs carries (at least one line
 * is always sent): a line may hold 8 KB of text and its fields, so 1,000 of them made a response of
 * megabytes that any viewer could ask for again and again; the reader goes on with `nextAfterSeq`.
 */
export const MAX_LOG_PAGE_BYTES = 1024 * 1024;
/** Most lines one search returns. */
export const MAX_SEARCH_LINES = 200;
/** Shortest search text: the trigram index needs three characters to narrow anything down. */
export const MIN_SEARCH_CHARS = 3;

/** GET /api/v1/tasks/:id/logs?attempt=&afterSeq=&limit= (attempt defaults to the task's current one). */
export const TaskLogLinesQuery = z.object({
  attempt: queryInt(1, 2_147_483_647).optional(),
  afterSeq: queryInt(0, 2_147_483_647).optional(),
  limit: queryInt(1, MAX_LOG_PAGE).optional(),
});
export type TaskLogLinesQuery = z.output<typeof TaskLogLinesQuery>;

/** GET /api/v1/logs/search?q=&jobId=&from=&to=&limit=&cursor= (`cursor`: the previous page's nextCursor) */
export const SearchTaskLogLinesQuery = z
  .object({
    q: str({ message: 'q is required' })
      .trim()
      .min(MIN_SEARCH_CHARS, `Search text must be at least ${MIN_SEARCH_CHARS} characters`)
      .max(200, 'Search text must be at most 200 characters')
      .refine((q) => q.length < MIN_SEARCH_CHARS || searchTextHasTrigram(q), NO_TRIGRAM_MESSAGE),
    jobId: objectId('job').optional(),
    from: Instant.optional(),
    to: Instant.optional(),
    limit: queryInt(1, MAX_SEARCH_LINES).optional(),
    cursor: str().max(1000).optional(),
  })
  .superRefine((q, ctx) => {
    if (q.from && q.to && q.from > q.to) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
  });
export type SearchTaskLogLinesQuery = z.output<typeof SearchTaskLogLinesQuery>;
