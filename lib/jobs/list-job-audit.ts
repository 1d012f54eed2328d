import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { findJob } from './store.ts';

export type JobAuditView = {
  id: string;
  action: 'backfill' | 'mark_success' | 'clear';
  runId: string | null;
  taskId: string | null;
  actor: string;
  reason: string | null;
  detail: Record<string, unknown>;
  createdAt: string;
};

/**
 * A job's recovery history (job_audit: backfill, mark_success, clear; docs/recovery.md),
 * newest first, at most `limit` (default 100) rows. Every role may read it.
 * @throws DomainError not_found.
 */
export async function listJobAudit(db: Db, jobId: string, actor: Actor, opts: { limit?: number } = {}): Promise<JobAuditView[]> {
  requireCan(actor, 'read');
  await findJob(db, jobId, 'allow');
  const rows = await db.jobAudit.findMany({ where: { jobId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: opts.limit ?? 100 });
  return rows.map((r) => ({
    id: r.id,
    action: r.action as JobAuditView['action'],
    runId: r.runId,
    taskId: r.taskId,
    actor: r.actor,
    reason: r.reason,
    detail: (r.detail ?? {}) as Record<string, unknown>,
    createdAt: r.createdAt.toISOString(),
  }));
}
