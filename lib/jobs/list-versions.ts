import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import type { JobSnapshot } from './job-view.ts';
import { findJob } from './store.ts';
import { nothingToRollBack, sameConfiguration } from './rollback-rule.ts';

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

/** Versions of a job, newest first (jobs in the recycle bin too). */
export async function listVersions(db: Db, jobId: string, actor: Actor, opts: { limit?: number } = {}): Promise<JobVersionListItem[]> {
  requireCan(actor, 'read');
  const job = await findJob(db, jobId, 'allow');
  const rows = await db.jobVersion.findMany({
    where: { jobId },
    orderBy: { version: 'desc' },
    take: opts.limit ?? 200,
    select: { version: true, changeType: true, reason: true, createdBy: true, createdAt: true, snapshot: true },
  });
  const current =
    rows.find((r) => r.version === job.version)?.snapshot ??
    (await db.jobVersion.findUnique({ where: { jobId_version: { jobId, version: job.version } }, select: { snapshot: true } }))?.snapshot;
  return rows.map(({ snapshot, ...r }) => ({
    ...r,
    createdAt: r.createdAt.toISOString(),
    rollbackRefusal:
      r.version === job.version || (current != null && sameConfiguration(snapshot as Record<string, unknown>, current as Record<string, unknown>))
        ? nothingToRollBack(r.version, r.changeType, job.version)
        : null,
  }));
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
