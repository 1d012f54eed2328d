import { Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { ListRunsQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorInstant, decodeCursor, encodeCursor, type Page } from '../api/cursor.ts';
import { toRunSummary, type RunSummary } from './run-view.ts';
import { escapeLike } from '../api/like.ts';
import { purgedJobIds } from '../jobs/purged-job-ids.ts';

/**
 * Runs across jobs, newest first: keyset on (scheduled_for desc, id desc)
 * (index runs_time_idx, runs_job_idx for one job, runs_status_time_idx for one status,
 * runs_trigger_time_idx for one trigger, runs_error_trgm_idx for error text), so pages never repeat or skip rows when
 * runs are inserted between fetches. Filters: jobId, status[], trigger[],
 * from/to (scheduled_for, inclusive; to before from is a 400 naming `to`), q (a run id or its first 8+ hex
 * characters, else a case-insensitive substring of the run's error). Raw query input is accepted (parsed here).
 * `total` counts every matching run up to {@link RUN_TOTAL_CAP} (`totalCapped` when there are more).
 */
/** Runs counted for a list's total at most (counting further would scan the whole history). */
export const RUN_TOTAL_CAP = 10_000;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ID_PREFIX_RE = /^[0-9a-f]{8}(-[0-9a-f-]{0,27})?$/i;

/** The `q` filter: a run id, the short id the console shows (first 8+ characters), or error text. */
function searchWhere(text: string): Prisma.RunWhereInput {
  if (UUID_RE.test(text)) return { id: text.toLowerCase() };
  const byError: Prisma.RunWhereInput = { error: { contains: escapeLike(text), mode: 'insensitive' } };
  if (!ID_PREFIX_RE.test(text)) return byError;
  // A uuid column has no prefix operator: compare on the range of ids that start with the prefix.
  const hex = text.toLowerCase().replace(/-/g, '');
  const lo = (hex + '0'.repeat(32)).slice(0, 32);
  const hi = (hex + 'f'.repeat(32)).slice(0, 32);
  const dashed = (h: string) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  return { OR: [{ id: { gte: dashed(lo), lte: dashed(hi) } }, byError] };
}

export async function listRuns(db: Db, rawQuery: unknown, actor: Actor): Promise<Page<RunSummary> & { total: number; totalCapped: boolean }> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListRunsQuery, rawQuery ?? {});
  const limit = q.limit ?? 50;
  const and: Prisma.RunWhereInput[] = [];
  if (q.jobId) and.push({ jobId: q.jobId });
  if (q.status?.length) and.push({ status: { in: q.status } });
  if (q.trigger?.length) and.push({ trigger: { in: q.trigger } });
  if (q.from) and.push({ scheduledFor: { gte: q.from } });
  if (q.to) and.push({ scheduledFor: { lte: q.to } });
  if (q.q) and.push(searchWhere(q.q));
  const filters: Prisma.RunWhereInput = { AND: [...and] };
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
  // A first page that is not full holds every match: it is the total. Counting again would repeat the
  // page's own read, all of it when nothing matches (a search by a short word reads every error whose
  // trigram it shares: docs/operations.md "History at scale").
  const [counted, purged] = await Promise.all([
    !q.cursor && rows.length <= limit ? rows : db.run.findMany({ where: filters, select: { id: true }, take: RUN_TOTAL_CAP + 1 }),
    purgedJobIds(db, items.map((r) => r.jobId)),
  ]);
  return {
    total: Math.min(counted.length, RUN_TOTAL_CAP),
    totalCapped: counted.length > RUN_TOTAL_CAP,
    items: items.map((r) => toRunSummary(r, purged.has(r.jobId))),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: 'runs', v: last.scheduledFor.toISOString(), id: last.id }) : null,
  };
}
