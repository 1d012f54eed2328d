import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { isUuid } from '../api/ids.ts';
import { parseOrThrow } from '../api/validation.ts';
import { MAX_LOG_PAGE_BYTES, TaskLogLinesQuery } from './queries.ts';
import type { TaskLogLinesPage, TaskLogLineView, TaskProgressView } from './view.ts';

const FINAL_TASK = new Set(['success', 'dead', 'cancelled', 'skipped']);

type LineRow = { seq: number; time: Date; level: TaskLogLineView['level']; stream: TaskLogLineView['stream']; text: string; fields: unknown };
/** A page's row, with how many rows the statement read before cutting the page at its byte budget. */
type PageRow = LineRow & { fetched: number };

export function toLineView(r: LineRow): TaskLogLineView {
  return { seq: r.seq, time: r.time.toISOString(), level: r.level, stream: r.stream, text: r.text, ...(r.fields != null ? { fields: r.fields } : {}) };
}

/**
 * One page of the lines of one attempt of a task, in write order: keyset on `seq`
 * (`afterSeq` exclusive, `limit` lines, primary key task_log_lines_pkey), so a client tails
 * a running attempt by asking again with `nextAfterSeq`. A page ends early, with `more`, once its
 * lines' text and fields reach MAX_LOG_PAGE_BYTES (./queries.ts); its first line is always sent. Also says whether the attempt is
 * over, whether its lease was reclaimed (the reaper's task_logs entry, lib/engine/
 * reclaim-expired-leases.ts: its message starts with `lease expired`), and its latest
 * progress report. Any role may read (docs/task-logs.md).
 * @param rawQuery `{ attempt?, afterSeq?, limit? }` as strings or numbers; attempt defaults to the task's current one
 * @throws DomainError('not_found') for an unknown task; ('validation') naming the bad field
 */
export async function listTaskLogLines(db: Db, taskId: string, rawQuery: unknown, actor: Actor): Promise<TaskLogLinesPage> {
  requireCan(actor, 'read');
  const q = parseOrThrow(TaskLogLinesQuery, rawQuery ?? {});
  const task = isUuid(taskId)
    ? await db.task.findUnique({ where: { id: taskId }, select: { id: true, runId: true, jobId: true, stepKey: true, attempt: true, status: true } })
    : null;
  if (!task) throw new DomainError('not_found', `Task ${taskId} not found`);
  const attempt = q.attempt ?? task.attempt;
  if (attempt > task.attempt) {
    throw new DomainError('validation', `attempt: the task has ${task.attempt} attempt(s)`, { attempt: `Must be at most ${task.attempt}` });
  }
  const afterSeq = q.afterSeq ?? 0;
  const limit = q.limit ?? 500;
  const [rows, progress, reclaimed] = await Promise.all([
    // the byte budget is applied in the statement, so a page past it is never sent to the console
    db.$queryRawUnsafe<PageRow[]>(
      `WITH page AS (
         SELECT seq, time, level, stream, text, fields, octet_length(text) + coalesce(octet_length(fields::text), 0) AS bytes
           FROM task_log_lines WHERE task_id = $1::uuid AND attempt = $2::int AND seq > $3::int
          ORDER BY seq LIMIT $4::int),
       counted AS (SELECT *, sum(bytes) OVER (ORDER BY seq) - bytes AS before, count(*) OVER () AS fetched FROM page)
       SELECT seq, time, level::text AS level, stream::text AS stream, text, fields, fetched::int AS fetched
         FROM counted WHERE before < $5::bigint ORDER BY seq`,
      task.id, attempt, afterSeq, limit + 1, MAX_LOG_PAGE_BYTES,
    ),
    db.$queryRawUnsafe<LineRow[]>(
      `SELECT seq, time, level::text AS level, stream::text AS stream, text, fields
         FROM task_log_lines WHERE task_id = $1::uuid AND attempt = $2::int AND stream = 'progress'
        ORDER BY seq DESC LIMIT 1`,
      task.id, attempt,
    ),
    db.taskLog.findFirst({
      where: { taskId: task.id, attempt, fromStatus: 'running', message: { startsWith: 'lease expired' } },
      select: { id: true },
    }),
  ]);
  const page = rows.slice(0, limit);
  const p = progress[0];
  const fields = (p?.fields ?? {}) as { done?: unknown; total?: unknown };
  const progressView: TaskProgressView | null = p
    ? {
        done: typeof fields.done === 'number' ? fields.done : null,
        total: typeof fields.total === 'number' ? fields.total : null,
        text: p.text,
        time: p.time.toISOString(),
      }
    : null;
  return {
    taskId: task.id,
    runId: task.runId,
    jobId: task.jobId,
    stepKey: task.stepKey,
    attempt,
    attempts: task.attempt,
    taskStatus: task.status,
    final: attempt < task.attempt || FINAL_TASK.has(task.status),
    leaseReclaimed: reclaimed !== null,
    progress: progressView,
    lines: page.map(toLineView),
    nextAfterSeq: page.length ? page[page.length - 1]!.seq : afterSeq,
    // more lines than the page holds, or lines the byte budget left for the next page
    more: rows.length > limit || (rows[0]?.fetched ?? 0) > rows.length,
  };
}
