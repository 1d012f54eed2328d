import { Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { ListJobsQuery, ListRecycleBinQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorInstant, decodeCursor, encodeCursor, type Page } from '../api/cursor.ts';
import { DomainError } from '../errors.ts';
import type { Job } from '../generated/prisma/client.ts';
import { toJobListItem, type JobListItem } from './job-view.ts';
import { escapeLike } from '../api/like.ts';
import { aheadSlotOf, loadAheadSlots } from './next-fire.ts';

type SortKey = 'key' | 'name' | 'next_run_at' | 'created_at';
const COLUMN = { key: 'key', name: 'name', next_run_at: 'nextRunAt', created_at: 'createdAt' } as const;

// Sorting by next fire lists active jobs first (a paused job's stored next_run_at is not a coming fire), in
// the order of the job_status enum: active, paused, dead_letter.
const STATUS_ORDER = ['active', 'paused', 'dead_letter'] as const;

function sortValue(job: Job, sort: SortKey): string | null {
  const v = job[COLUMN[sort]];
  const value = v instanceof Date ? v.toISOString() : (v as string | null);
  return sort === 'next_run_at' ? `${job.status}|${value ?? ''}` : value;
}

/**
 * Keyset condition "after (v, id)" for ORDER BY col dir, id dir; for next_run_at "after (status, v, id)" for
 * ORDER BY status, next_run_at dir NULLS LAST, id dir (rows with no next fire last in their status, by id).
 */
export function keysetAfter(sort: SortKey, dir: 'asc' | 'desc', v: string | number | null, id: string): Prisma.JobWhereInput {
  if (sort === 'next_run_at') {
    // (status rank, next_run_at, id): later statuses, or the same status and after (next_run_at, id).
    const [status, at] = String(v ?? '').split('|') as [string, string | undefined];
    const rank = STATUS_ORDER.indexOf(status as (typeof STATUS_ORDER)[number]);
    if (rank < 0) decodeCursor('', 'x');
    return { OR: [{ status: { in: [...STATUS_ORDER.slice(rank + 1)] } }, { status: status as (typeof STATUS_ORDER)[number], ...nextRunAfter(dir, at ? at : null, id) }] };
  }
  const col = COLUMN[sort];
  const op = dir === 'asc' ? 'gt' : 'lt';
  const isDate = sort === 'created_at';
  if (v === null) return { [col]: null, id: { [op]: id } };
  const value = isDate ? cursorInstant({ s: sort, v, id }) : String(v);
  return { OR: [{ [col]: { [op]: value } }, { [col]: value, id: { [op]: id } }] };
}

/** "after (next_run_at, id)" for ORDER BY next_run_at dir NULLS LAST, id dir, within one status. */
function nextRunAfter(dir: 'asc' | 'desc', v: string | null, id: string): Prisma.JobWhereInput {
  const op = dir === 'asc' ? 'gt' : 'lt';
  if (v === null) return { nextRunAt: null, id: { [op]: id } };
  const value = cursorInstant({ s: 'next_run_at', v, id });
  return { OR: [{ nextRunAt: { [op]: value } }, { nextRunAt: value, id: { [op]: id } }, { nextRunAt: null }] };
}

export type ListJobsResult = Page<JobListItem>;

/**
 * Live jobs for the list page and GET /jobs. Search `q` (key or name, ILIKE),
 * filters status[], scheduleKind[], handler (any step), sort key|name|next_run_at|created_at (next_run_at: active
 * jobs first, then paused, then dead letter, each by next fire)
 * (default created_at desc), keyset pagination on (sort value, id) with an opaque
 * cursor: rows inserted or changed between page fetches never make a page repeat
 * or skip a row that existed before. Raw query input is accepted (parsed here).
 * Each row's `nextFireAt` follows docs/on-time.md "Next fire" at `now` (one statement for the page's runs
 * created ahead, loadAheadSlots).
 */
export async function listJobs(db: Db, rawQuery: unknown, actor: Actor, now: Date = new Date()): Promise<ListJobsResult> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListJobsQuery, rawQuery ?? {});
  const sort: SortKey = q.sort ?? 'created_at';
  const dir = q.dir ?? (sort === 'created_at' ? 'desc' : 'asc');
  const limit = q.limit ?? 50;
  const cursorTag = `jobs:${sort}:${dir}`;
  const and: Prisma.JobWhereInput[] = [{ deletedAt: null }];
  if (q.q) {
    and.push({ OR: [{ key: { contains: escapeLike(q.q), mode: 'insensitive' } }, { name: { contains: escapeLike(q.q), mode: 'insensitive' } }] });
  }
  if (q.status?.length) and.push({ status: { in: q.status } });
  if (q.scheduleKind?.length) and.push({ scheduleKind: { in: q.scheduleKind } });
  if (q.handler) and.push({ steps: { some: { handler: q.handler } } });
  if (q.cursor) {
    const c = decodeCursor(q.cursor, cursorTag);
    and.push(keysetAfter(sort, dir, c.v, c.id));
  }
  const col = COLUMN[sort];
  const orderBy: Prisma.JobOrderByWithRelationInput[] = [
    ...(sort === 'next_run_at' ? [{ status: 'asc' as const }, { nextRunAt: { sort: dir, nulls: 'last' as const } }] : [{ [col]: dir }]),
    { id: dir },
  ];
  const rows = await db.job.findMany({
    where: { AND: and },
    orderBy,
    take: limit + 1,
    include: { steps: { select: { key: true, handler: true } } },
  });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const ahead = await loadAheadSlots(db, items.map((j) => j.id), now);
  return {
    items: items.map((j) => toJobListItem(j, j.steps, aheadSlotOf(ahead, j.id))),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: cursorTag, v: sortValue(last, sort), id: last.id }) : null,
  };
}

/** Recycle bin: deleted jobs, most recently deleted first (keyset on deleted_at desc, id desc). */
export async function listRecycleBin(db: Db, rawQuery: unknown, actor: Actor): Promise<ListJobsResult> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListRecycleBinQuery, rawQuery ?? {});
  const limit = q.limit ?? 50;
  const and: Prisma.JobWhereInput[] = [{ deletedAt: { not: null } }];
  if (q.q) and.push({ OR: [{ key: { contains: escapeLike(q.q), mode: 'insensitive' } }, { name: { contains: escapeLike(q.q), mode: 'insensitive' } }] });
  if (q.cursor) {
    const c = decodeCursor(q.cursor, 'bin');
    const v = cursorInstant(c);
    and.push({ OR: [{ deletedAt: { lt: v } }, { deletedAt: v, id: { lt: c.id } }] });
  }
  const rows = await db.job.findMany({
    where: { AND: and },
    orderBy: [{ deletedAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
    include: { steps: { select: { key: true, handler: true } } },
  });
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map((j) => toJobListItem(j, j.steps)),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: 'bin', v: last.deletedAt!.toISOString(), id: last.id }) : null,
  };
}
