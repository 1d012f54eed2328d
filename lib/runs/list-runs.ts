import { getDb, Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { ListRunsQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorInstant, decodeCursor, encodeCursor, type Page } from '../api/cursor.ts';
import { toRunSummary, type RunSummary } from './run-view.ts';

/**
 * Runs across jobs, newest first: keyset on (scheduled_for desc, id desc)
 * (index runs_time_idx / runs_job_idx), so pages never repeat or skip rows when
 * runs are inserted between fetches. Filters: jobId, status[], trigger[],
 * from/to (scheduled_for, inclusive). Raw query input is accepted (parsed here).
 */
export async function listRuns(db: Db = getDb(), rawQuery: unknown, actor: Actor): Promise<Page<RunSummary>> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListRunsQuery, rawQuery ?? {});
  const limit = q.limit ?? 50;
  const and: Prisma.RunWhereInput[] = [];
  if (q.jobId) and.push({ jobId: q.jobId });
  if (q.status?.length) and.push({ status: { in: q.status } });
  if (q.trigger?.length) and.push({ trigger: { in: q.trigger } });
  if (q.from) and.push({ scheduledFor: { gte: q.from } });
  if (q.to) and.push({ scheduledFor: { lte: q.to } });
  if (q.cursor) {
    const c = decodeCursor(q.cursor, 'runs');
    const v = cursorInstant(c);
    and.push({ OR: [{ scheduledFor: { lt: v } }, { scheduledFor: v, id: { lt: c.id } }] });
  }
  const rows = await db.run.findMany({
    where: { AND: and },
    orderBy: [{ scheduledFor: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(toRunSummary),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: 'runs', v: last.scheduledFor.toISOString(), id: last.id }) : null,
  };
}
