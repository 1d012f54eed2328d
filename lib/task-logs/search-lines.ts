import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { parseOrThrow } from '../api/validation.ts';
import { containsPattern } from '../api/like.ts';
import { pgErrorCode } from '../engine/pg.ts';
import { cursorInstant, decodeCursor, encodeCursor, invalidCursor } from '../api/cursor.ts';
import { SearchTaskLogLinesQuery } from './queries.ts';
import { toLineView } from './list-lines.ts';
import type { TaskLogSearchHit } from './view.ts';
import { purgedJobIds } from '../jobs/purged-job-ids.ts';

/** Longest a search may take before it is stopped (ms): a search must never tie up the database. */
export const SEARCH_TIMEOUT_MS = 5000;

/**
 * Searches one console process runs at once, and of those one principal (a user, an API token):
 * each holds a database connection for up to SEARCH_TIMEOUT_MS, and the console's pool has 10
 * (TICKFLOW_DB_POOL), so a burst of searches from any role must not take the connections every
 * page and route needs. A search past either limit is a 429 at once.
 */
export const MAX_CONCURRENT_SEARCHES = 4;
export const MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL = 2;

/**
 * The running searches of this process, on globalThis: Next may bundle this module into the REST
 * route's code and the Logs page's separately, and both must count against one limit.
 */
const slots = ((globalThis as unknown as { tickflowLogSearchSlots?: { running: number; byPrincipal: Map<string, number> } }).tickflowLogSearchSlots ??= {
  running: 0,
  byPrincipal: new Map<string, number>(),
});

/**
 * Runs `search` in one of the process's search slots (MAX_CONCURRENT_SEARCHES, at most
 * MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL of them for `principal`).
 * @throws DomainError('rate_limited') when no slot is free
 */
async function inSearchSlot<T>(principal: string, search: () => Promise<T>): Promise<T> {
  const own = slots.byPrincipal.get(principal) ?? 0;
  if (slots.running >= MAX_CONCURRENT_SEARCHES || own >= MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL) {
    throw new DomainError(
      'rate_limited',
      own >= MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL
        ? `You already have ${own} log searches running; try again when one has finished`
        : 'Too many log searches are running; try again in a few seconds',
      undefined,
      { retryAfterSeconds: Math.ceil(SEARCH_TIMEOUT_MS / 1000) },
    );
  }
  slots.running++;
  slots.byPrincipal.set(principal, own + 1);
  try {
    return await search();
  } finally {
    slots.running--;
    const left = (slots.byPrincipal.get(principal) ?? 1) - 1;
    if (left > 0) slots.byPrincipal.set(principal, left);
    else slots.byPrincipal.delete(principal);
  }
}


type HitRow = {
  task_id: string;
  attempt: number;
  seq: number;
  time: Date;
  level: TaskLogSearchHit['level'];
  stream: TaskLogSearchHit['stream'];
  text: string;
  fields: unknown;
  run_id: string;
  job_id: string;
  step_key: string | null;
  job_key: string | null;
};

/** The sort a search cursor belongs to (lib/api/cursor.ts: a cursor of another list is refused). */
const SEARCH_SORT = 'logs.search';

/** Where a page of search hits ends: the last line's (time, task, attempt, seq), the search order's key. */
type SearchKey = { time: Date; taskId: string; attempt: number; seq: number };

/** The cursor after `k`: `v` holds the line's instant, attempt and seq, `id` its task. */
function searchCursor(k: SearchKey): string {
  return encodeCursor({ s: SEARCH_SORT, v: `${k.time.toISOString()}|${k.attempt}|${k.seq}`, id: k.taskId });
}

/** Reads a cursor made by searchCursor; DomainError('validation', …, { cursor }) for anything else. */
function readSearchCursor(cursor: string): SearchKey {
  const c = decodeCursor(cursor, SEARCH_SORT);
  const m = typeof c.v === 'string' ? /^([^|]+)\|(\d{1,10})\|(\d{1,10})$/.exec(c.v) : null;
  if (!m) return invalidCursor();
  const attempt = Number(m[2]);
  const seq = Number(m[3]);
  if (attempt < 1 || attempt > 2_147_483_647 || seq > 2_147_483_647) return invalidCursor();
  return { time: cursorInstant({ ...c, v: m[1]! }), taskId: c.id.toLowerCase(), attempt, seq };
}

/**
 * The search's one statement and its parameters (docs/task-logs.md "GET /api/v1/logs/search"): the
 * hit lines newest first, at most `limit` rows, after the keyset `after` when given, each with
 * its task's step key and its run's job key. The WHERE clause names task_log_line_plain(text), the
 * expression of the trigram index task_log_lines_plain_trgm_idx, so PostgreSQL can answer it
 * from that index. Exported so that bench/log-search.ts explains the very statement that runs.
 * @param p.q the searched text, already validated (at least 3 characters); `from`/`to` UTC
 *   instants or undefined (open); `jobId` a job's uuid or undefined (all jobs)
 */
export function searchLinesStatement(p: { q: string; from?: Date; to?: Date; jobId?: string; limit: number; after: SearchKey | null }): { sql: string; params: unknown[] } {
  return {
    sql: `WITH hit AS (
       SELECT task_id, attempt, seq, time, level::text AS level, stream::text AS stream, text, fields, run_id, job_id, scheduled_for
         FROM task_log_lines
        WHERE task_log_line_plain(text) ILIKE $1
          AND ($2::timestamptz IS NULL OR time >= $2::timestamptz)
          AND ($3::timestamptz IS NULL OR time <= $3::timestamptz)
          AND ($4::text IS NULL OR job_id = $4::text)
          -- the keyset of the next page; time <= $6 alone lets the time index start there
          AND ($6::timestamptz IS NULL OR (time <= $6::timestamptz AND (time, task_id, attempt, seq) < ($6::timestamptz, $7::uuid, $8::int, $9::int)))
        ORDER BY time DESC, task_id DESC, attempt DESC, seq DESC
        LIMIT $5::int
     )
     SELECT hit.*, t.step_key, r.job_key
       FROM hit LEFT JOIN tasks t ON t.id = hit.task_id AND t.scheduled_for = hit.scheduled_for
              LEFT JOIN runs r ON r.id = hit.run_id AND r.scheduled_for = hit.scheduled_for
      ORDER BY hit.time DESC, hit.task_id DESC, hit.attempt DESC, hit.seq DESC`,
    params: [
      containsPattern(p.q), p.from ?? null, p.to ?? null, p.jobId ?? null, p.limit,
      p.after?.time ?? null, p.after?.taskId ?? null, p.after?.attempt ?? null, p.after?.seq ?? null,
    ],
  };
}

/**
 * Text search over stored task log lines (docs/task-logs.md): lines whose text as the console
 * shows it — without ANSI terminal escapes, SQL function task_log_line_plain (migration
 * 20261211000000_task_log_search_plain_text) — contains
 * `q` (case-insensitive substring, at least 3 characters), of one job (`jobId`) or all
 * jobs, with `from <= time <= to` (either may be left open), newest first (ties: task id,
 * attempt and seq, descending), at most `limit` (default 100, at most 200) per page.
 * Answered from the trigram index task_log_lines_plain_trgm_idx over that expression (pg_trgm:
 * "F.35 pg_trgm" in the PostgreSQL docs; the WHERE clause must name the same expression), with the task, run and job of each line. `more` says the limit
 * cut the answer; `nextCursor` (null on the last page) is the `cursor` of the next, older
 * page: a keyset on the search order, so lines written meanwhile neither repeat nor shift
 * a page. The statement is stopped after SEARCH_TIMEOUT_MS, and at most MAX_CONCURRENT_SEARCHES
 * run at once in this process (MAX_CONCURRENT_SEARCHES_PER_PRINCIPAL per user or token).
 * @throws DomainError('validation') naming the bad field (`cursor` for one not made by this
 *   search; `q` for a text without a trigram, searchTextHasTrigram); ('unprocessable') when the
 *   search took too long; ('rate_limited', detail.retryAfterSeconds) when no search slot is free
 */
export async function searchTaskLogLines(db: Db, rawQuery: unknown, actor: Actor): Promise<{ lines: TaskLogSearchHit[]; more: boolean; nextCursor: string | null }> {
  requireCan(actor, 'read');
  const q = parseOrThrow(SearchTaskLogLinesQuery, rawQuery ?? {});
  const limit = q.limit ?? 100;
  const after = q.cursor ? readSearchCursor(q.cursor) : null;
  let rows: HitRow[];
  try {
    rows = await inSearchSlot(`${actor.kind}:${actor.id}`, () =>
      inTransaction(db, async (tx) => {
        await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${SEARCH_TIMEOUT_MS}`);
        const statement = searchLinesStatement({ ...q, limit: limit + 1, after });
        return tx.$queryRawUnsafe<HitRow[]>(statement.sql, ...statement.params);
      }),
    );
  } catch (err) {
    if (pgErrorCode(err) === '57014') {
      throw new DomainError('unprocessable', `The search took longer than ${SEARCH_TIMEOUT_MS / 1000} s: narrow it with jobId, from/to or a longer text`);
    }
    throw err;
  }
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const more = rows.length > limit;
  const purged = await purgedJobIds(db, page.map((r) => r.job_id));
  return {
    lines: page.map((r) => ({
      ...toLineView(r),
      taskId: r.task_id,
      attempt: r.attempt,
      stepKey: r.step_key,
      runId: r.run_id,
      jobId: r.job_id,
      jobKey: r.job_key,
      jobPurged: purged.has(r.job_id),
    })),
    more,
    nextCursor: more && last ? searchCursor({ time: last.time, taskId: last.task_id, attempt: last.attempt, seq: last.seq }) : null,
  };
}
