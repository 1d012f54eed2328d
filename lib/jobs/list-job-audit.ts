import type { Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { findJob } from './store.ts';
import { ListJobAuditQuery } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { afterCreatedAt, createdAtPage, type Page } from '../api/cursor.ts';

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

/** The sort a recovery history cursor belongs to (lib/api/cursor.ts): a cursor of another list is a 400 at `cursor`. */
const JOB_AUDIT_CURSOR = 'job-audit';

/**
 * One page of a job's recovery history (job_audit: backfill, mark_success, clear; docs/recovery.md),
 * newest first. Every role may read it.
 * @param opts `limit` rows (1..MAX_HISTORY_PAGE, default 100) and `cursor`, the `nextCursor` of the previous
 *   page. Raw query input is accepted.
 * @returns `{ items, nextCursor }`; `nextCursor` is null once the oldest entry has been listed.
 * Paging: keyset on (created_at desc, id desc) as the alarms list (lib/api/cursor.ts afterCreatedAt), so
 * entries written in the same millisecond are neither repeated nor skipped; index job_audit_job_idx
 * (job_id, created_at DESC, id DESC).
 * @throws DomainError forbidden (requireCan read), not_found, validation naming `limit` or `cursor`.
 */
export async function listJobAudit(db: Db, jobId: string, actor: Actor, opts: ListJobAuditQuery = {}): Promise<Page<JobAuditView>> {
  requireCan(actor, 'read');
  const q = parseOrThrow(ListJobAuditQuery, opts);
  const job = await findJob(db, jobId, 'allow');
  const limit = q.limit ?? 100;
  const rows = await db.jobAudit.findMany({
    where: { jobId: job.id, ...afterCreatedAt(q.cursor, JOB_AUDIT_CURSOR) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit + 1,
  });
  const page = createdAtPage(rows, limit, JOB_AUDIT_CURSOR);
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((r) => ({
      id: r.id,
      action: r.action as JobAuditView['action'],
      runId: r.runId,
      taskId: r.taskId,
      actor: r.actor,
      reason: r.reason,
      detail: (r.detail ?? {}) as Record<string, unknown>,
      createdAt: r.createdAt.toISOString(),
    })),
  };
}
