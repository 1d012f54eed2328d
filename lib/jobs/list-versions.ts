import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { JobSnapshot } from './job-view.ts';
import { findJob } from './store.ts';
import { nothingToRollBack, sameConfiguration } from './rollback-rule.ts';
import { ListVersionsQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { cursorPositiveInt, decodeCursor, encodeCursor, invalidCursor, type Page } from '../api/cursor.ts';

export type JobVersionView = {
  version: number;
  changeType: 'create' | 'update' | 'pause' | 'resume' | 'delete' | 'restore' | 'rollback';
  reason: string | null;
  createdBy: string;
  createdAt: string;
};

/**
 * A version in the history list, with whether a rollback to it would restore anything: null when it would, else
 * why not (its configuration is the current one; rollback-rule.ts, the rule rollbackJob refuses by).
 */
export type JobVersionListItem = JobVersionView & { rollbackRefusal: string | null };

/** The sort a versions cursor belongs to (lib/api/cursor.ts): a cursor of another list is a 400 at `cursor`. */
const VERSIONS_CURSOR = 'versions';

/**
 * One page of a job's versions, newest first (jobs in the recycle bin too), so that every version
 * down to v1 can be read however often the job was edited.
 * @param opts `limit` rows (1..MAX_HISTORY_PAGE, default 200) and `cursor`, the `nextCursor` of the previous
 *   page (it names the job it was read for: another job's cursor is refused). Raw query input is accepted.
 * @returns `{ items, nextCursor }`; `nextCursor` is null once v1 has been listed.
 * Paging: keyset on version desc (versions of a job are unique and never renumbered), read through the
 * unique index job_versions (job_id, version) backwards; never OFFSET.
 * @throws DomainError forbidden (requireCan read), not_found (no such job), validation naming `limit` or `cursor`.
 */
export async function listVersions(db: Db, jobId: string, actor: Actor, opts: ListVersionsQuery = {}): Promise<Page<JobVersionListItem>> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListVersionsQuery, opts);
  const job = await findJob(db, jobId, 'allow');
  const limit = q.limit ?? 200;
  let below: number | undefined;
  if (q.cursor) {
    const c = decodeCursor(q.cursor, VERSIONS_CURSOR);
    below = cursorPositiveInt(c);
    if (c.id.toLowerCase() !== job.id.toLowerCase()) invalidCursor();
  }
  const rows = await db.jobVersion.findMany({
    where: { jobId: job.id, ...(below !== undefined ? { version: { lt: below } } : {}) },
    orderBy: { version: 'desc' },
    take: limit + 1,
    select: { version: true, changeType: true, reason: true, createdBy: true, createdAt: true, snapshot: true },
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const current =
    page.find((r) => r.version === job.version)?.snapshot ??
    (await db.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: job.version } }, select: { snapshot: true } }))?.snapshot;
  const items = page.map(({ snapshot, ...r }) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
    rollbackRefusal:
      r.version === job.version || (current != null && sameConfiguration(snapshot as Record<string, unknown>, current as Record<string, unknown>))
        ? nothingToRollBack(r.version, r.changeType, job.version)
        : null,
  }));
  return { items, nextCursor: rows.length > limit && last ? encodeCursor({ s: VERSIONS_CURSOR, v: last.version, id: job.id }) : null };
}

/** One version with its snapshot. @throws DomainError('not_found'). */
export async function getJobVersion(
  db: Db,
  jobId: string,
  version: number,
  actor: Actor,
): Promise<JobVersionView & { snapshot: JobSnapshot }> {
  requireCan(actor, 'read');
  await findJob(db, jobId, 'allow');
  const r = await db.jobVersion.findUnique({ where: { jobId_version: { jobId, version } } });
  if (!r) throw new DomainError('not_found', `Version ${version} not found`, { version: 'No such version' });
  return {
    version: r.version,
    changeType: r.changeType,
    reason: r.reason,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
    snapshot: r.snapshot as unknown as JobSnapshot,
  };
}
