import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { parseOrThrow } from '../api/validation.ts';
import { containsPattern } from '../api/like.ts';
import { pgErrorCode } from '../engine/pg.ts';
import { SearchTaskLogLinesQuery } from './queries.ts';
import { toLineView } from './list-lines.ts';
import type { TaskLogSearchHit } from './view.ts';

/** Longest a search may take before it is stopped (ms): a search must never tie up the database. */
export const SEARCH_TIMEOUT_MS = 5000;


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

/**
 * Text search over stored task log lines (docs/task-logs.md): lines whose text contains
 * `q` (case-insensitive substring, at least 3 characters), of one job (`jobId`) or all
 * jobs, with `from <= time <= to` (either may be left open), newest first, at most
 * `limit` (default 100, at most 200). Answered from the trigram index
 * task_log_lines_text_trgm_idx (pg_trgm: "F.35 pg_trgm" in the PostgreSQL docs), with
 * the task, run and job of each line. `more` says the limit cut the answer.
 * The statement is stopped after SEARCH_TIMEOUT_MS.
 * @throws DomainError('validation') naming the bad field; ('unprocessable') when the search took too long
 */
export async function searchTaskLogLines(db: Db, rawQuery: unknown, actor: Actor): Promise<{ lines: TaskLogSearchHit[]; more: boolean }> {
  requireCan(actor, 'read');
  const q = parseOrThrow(SearchTaskLogLinesQuery, rawQuery ?? {});
  const limit = q.limit ?? 100;
  let rows: HitRow[];
  try {
    rows = await inTransaction(db, async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL statement_timeout = ${SEARCH_TIMEOUT_MS}`);
      return tx.$queryRawUnsafe<HitRow[]>(
        `WITH hit AS (
           SELECT task_id, attempt, seq, time, level::text AS level, stream::text AS stream, text, fields, run_id, job_id, scheduled_for
             FROM task_log_lines
            WHERE text ILIKE $1
              AND ($2::timestamptz IS NULL OR time >= $2::timestamptz)
              AND ($3::timestamptz IS NULL OR time <= $3::timestamptz)
              AND ($4::text IS NULL OR job_id = $4::text)
            ORDER BY time DESC, task_id, attempt, seq DESC
            LIMIT $5::int
         )
         SELECT hit.*, t.step_key, r.job_key
           FROM hit LEFT JOIN tasks t ON t.id = hit.task_id AND t.scheduled_for = hit.scheduled_for
                  LEFT JOIN runs r ON r.id = hit.run_id AND r.scheduled_for = hit.scheduled_for
          ORDER BY hit.time DESC, hit.task_id, hit.attempt, hit.seq DESC`,
        containsPattern(q.q), q.from ?? null, q.to ?? null, q.jobId ?? null, limit + 1,
      );
    });
  } catch (err) {
    if (pgErrorCode(err) === '57014') {
      throw new DomainError('unprocessable', `The search took longer than ${SEARCH_TIMEOUT_MS / 1000} s: narrow it with jobId, from/to or a longer text`);
    }
    throw err;
  }
  return {
    lines: rows.slice(0, limit).map((r) => ({
      ...toLineView(r),
      taskId: r.task_id,
      attempt: r.attempt,
      stepKey: r.step_key,
      runId: r.run_id,
      jobId: r.job_id,
      jobKey: r.job_key,
    })),
    more: rows.length > limit,
  };
}
