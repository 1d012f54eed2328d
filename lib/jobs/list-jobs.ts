import { Prisma, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { ListJobsQuery, ListRecycleBinQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorInstant, decodeCursor, encodeCursor, invalidCursor, type Page } from '../api/cursor.ts';
import { DomainError } from '../errors.ts';
import type { Job } from '../generated/prisma/client.ts';
import { toJobListItem, type JobListItem } from './job-view.ts';
import { escapeLike } from '../api/like.ts';
import { aheadSlotOf, selectAheadSlots, selectAllAheadSlots } from '../engine/sql/ahead-runs.ts';
import { lastRunOf, selectLastRuns } from '../engine/sql/last-runs.ts';

type SortKey = 'key' | 'name' | 'next_run_at' | 'created_at';
const COLUMN = { key: 'key', name: 'name', next_run_at: 'nextRunAt', created_at: 'createdAt' } as const;

// Sorting by next fire lists active jobs first (a paused job's stored next_run_at is not a coming fire), in
// the order of the job_status enum: active, paused, dead_letter.
const STATUS_ORDER = ['active', 'paused', 'dead_letter'] as const;

// Sorting by next fire sorts by what the Next fire column shows (docs/on-time.md "Next fire"): a job with a run
// created ahead of a slot still to come by that slot, every other job by its stored next_run_at. `ahead` holds
// those slots (selectAllAheadSlots).
function sortValue(job: Job, sort: SortKey, ahead: Map<string, Date>): string | null {
  const v = sort === 'next_run_at' ? (aheadSlotOf(ahead, job.id) ?? job.nextRunAt) : job[COLUMN[sort]];
  const value = v instanceof Date ? v.toISOString() : (v as string | null);
  return sort === 'next_run_at' ? `${job.status}|${value ?? ''}` : value;
}

/** A job's place in the list sorted by next fire: its status, its next fire for sorting (sortValue), its id. */
type FirePlace = { status: string; at: number | null; id: string };

function firePlace(job: Job, ahead: Map<string, Date>): FirePlace {
  return { status: job.status, at: (aheadSlotOf(ahead, job.id) ?? job.nextRunAt)?.getTime() ?? null, id: job.id.toLowerCase() };
}

/**
 * The order of ORDER BY status, next fire dir NULLS LAST, id dir (the SQL order of the list sorted by next_run_at,
 * with a run created ahead's slot in place of next_run_at), for merging the jobs that have such a run into a page.
 * Ids compare as PostgreSQL compares uuids: their lower-case text, character by character.
 */
function compareByNextFire(a: FirePlace, b: FirePlace, dir: 'asc' | 'desc'): number {
  const rank = STATUS_ORDER.indexOf(a.status as (typeof STATUS_ORDER)[number]) - STATUS_ORDER.indexOf(b.status as (typeof STATUS_ORDER)[number]);
  if (rank !== 0) return rank;
  const sign = dir === 'asc' ? 1 : -1;
  if (a.at !== b.at) {
    if (a.at === null) return 1;
    if (b.at === null) return -1;
    return sign * (a.at - b.at);
  }
  return a.id === b.id ? 0 : sign * (a.id < b.id ? -1 : 1);
}

/** The place a next-fire cursor names (its value is `status|instant`, sortValue). */
function cursorPlace(c: { v: string | number | null; id: string }): FirePlace {
  const [status, at] = String(c.v ?? '').split('|') as [string, string | undefined];
  if (!STATUS_ORDER.includes(status as (typeof STATUS_ORDER)[number])) decodeCursor('', 'x');
  return { status, at: at ? cursorInstant({ s: 'next_run_at', v: at, id: c.id }).getTime() : null, id: c.id.toLowerCase() };
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
  // key, name and created_at are never null, so no page of this list ends on a null value: a
  // cursor saying so was not made here (Prisma refuses `key: null` on a required column, a 500)
  if (v === null) return invalidCursor();
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
 * or skip another row that existed before; a row whose own sort value changed meanwhile (a rename under
 * sort=name, a fire moving its next fire under sort=next_run_at, a pause or resume moving it to another status
 * group) is read where it now sorts, so it may be met twice or not at all (created_at never changes). Raw query
 * input is accepted (parsed here).
 * Each row's `nextFireAt` follows docs/on-time.md "Next fire" at `now` (one statement for the page's runs
 * created ahead, selectAheadSlots); its last run's status and time are that run's own (one statement for the page,
 * lib/engine/sql/last-runs.ts selectLastRuns). Sorted by next fire, the order is that of `nextFireAt` within each status: the
 * few jobs with a run created ahead (selectAllAheadSlots, one statement) are read apart and merged into the page by
 * their slot, every other job is ordered by next_run_at in SQL.
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
  const cursor = q.cursor ? decodeCursor(q.cursor, cursorTag) : null;
  const col = COLUMN[sort];
  const orderBy: Prisma.JobOrderByWithRelationInput[] = [
    ...(sort === 'next_run_at' ? [{ status: 'asc' as const }, { nextRunAt: { sort: dir, nulls: 'last' as const } }] : [{ [col]: dir }]),
    { id: dir },
  ];
  const include = { steps: { select: { key: true, handler: true } } } as const;
  let rows;
  let ahead: Map<string, Date>;
  if (sort === 'next_run_at') {
    // The jobs with a run created ahead sort by its slot, not by their next_run_at: SQL orders the others, the
    // few with one (at most the jobs due within the look-ahead window) are filtered by the cursor and merged here.
    ahead = await selectAllAheadSlots(db, now);
    const aheadIds = [...ahead.keys()];
    const [rest, withAhead] = await Promise.all([
      db.job.findMany({
        where: { AND: [...and, ...(cursor ? [keysetAfter(sort, dir, cursor.v, cursor.id)] : []), ...(aheadIds.length ? [{ id: { notIn: aheadIds } }] : [])] },
        orderBy,
        take: limit + 1,
        include,
      }),
      aheadIds.length ? db.job.findMany({ where: { AND: [...and, { id: { in: aheadIds } }] }, include }) : Promise.resolve([]),
    ]);
    const after = cursor ? cursorPlace(cursor) : null;
    rows = [...rest, ...withAhead.filter((j) => !after || compareByNextFire(firePlace(j, ahead), after, dir) > 0)]
      .sort((a, b) => compareByNextFire(firePlace(a, ahead), firePlace(b, ahead), dir))
      .slice(0, limit + 1);
  } else {
    if (cursor) and.push(keysetAfter(sort, dir, cursor.v, cursor.id));
    rows = await db.job.findMany({ where: { AND: and }, orderBy, take: limit + 1, include });
    ahead = await selectAheadSlots(db, rows.slice(0, limit).map((j) => j.id), now);
  }
  const items = rows.slice(0, limit);
  const lastRuns = await selectLastRuns(db, items);
  const last = items[items.length - 1];
  return {
    items: items.map((j) => toJobListItem(j, j.steps, { aheadSlot: aheadSlotOf(ahead, j.id), lastRun: lastRunOf(lastRuns, j.id) })),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: cursorTag, v: sortValue(last, sort, ahead), id: last.id }) : null,
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
  const lastRuns = await selectLastRuns(db, items);
  return {
    items: items.map((j) => toJobListItem(j, j.steps, { aheadSlot: null, lastRun: lastRunOf(lastRuns, j.id) })),
    nextCursor: rows.length > limit && last ? encodeCursor({ s: 'bin', v: last.deletedAt!.toISOString(), id: last.id }) : null,
  };
}
