/**
 * Query schemas of the task log line routes (docs/task-logs.md), shared by the REST
 * routes, the OpenAPI document and the domain functions. Errors name the field.
 */
import { z } from 'zod';
import { Instant, objectId, queryInt, str } from '../api/schemas.ts';

/** Most lines one page of GET /tasks/:id/logs returns. */
export const MAX_LOG_PAGE = 1000;
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

/**
 * Whether `q` gives the trigram index something to look up, by pg_trgm's rule for a LIKE pattern
 * (the search's `%q%`): a word is a run of letters or digits; one inside the text is padded with
 * two spaces before it and one after, one touching the pattern's leading `%` gets no space before,
 * one touching the trailing `%` none after, and a trigram needs three characters. Without one
 * (`~~~`, `a..`, `...`) PostgreSQL reads every stored line: a search any viewer may send would scan
 * the whole log table, many at once exhausting the console's database connections.
 */
export function searchTextHasTrigram(q: string): boolean {
  for (const m of q.matchAll(/[\p{L}\p{N}]+/gu)) {
    const start = m.index;
    const end = start + m[0].length;
    const chars = [...m[0]].length + (start > 0 ? 2 : 0) + (end < q.length ? 1 : 0);
    if (chars >= 3) return true;
  }
  return false;
}

/** GET /api/v1/logs/search?q=&jobId=&from=&to=&limit=&cursor= (`cursor`: the previous page's nextCursor) */
export const SearchTaskLogLinesQuery = z
  .object({
    q: str({ message: 'q is required' })
      .trim()
      .min(MIN_SEARCH_CHARS, `Search text must be at least ${MIN_SEARCH_CHARS} characters`)
      .max(200, 'Search text must be at most 200 characters')
      .refine((q) => q.length < MIN_SEARCH_CHARS || searchTextHasTrigram(q), 'Search text must hold a word the index can look up: 3 letters or digits in a row, or a shorter word after other characters (punctuation alone would read every line)'),
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
