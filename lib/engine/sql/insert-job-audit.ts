import { preparedSql, type SqlClient } from '../../db.ts';

export type JobAuditAction = 'backfill' | 'mark_success' | 'clear';

/**
 * Writes one row of a job's recovery history (`job_audit`, docs/recovery.md):
 * who did which recovery action, on which run/task, and why. Written in the
 * same transaction as the action, so the history never shows an action that
 * did not happen (or misses one that did).
 *
 * Lock: none beyond the insert. Index: job_audit_job_idx (job_id, created_at DESC, id DESC).
 */
export async function insertJobAudit(
  tx: SqlClient,
  p: { jobId: string; action: JobAuditAction; runId?: string | null; taskId?: string | null; actor: string; reason?: string | null; detail: Record<string, unknown> },
  now: Date,
): Promise<void> {
  await tx.$executeRawUnsafe(
    preparedSql('insert-job-audit', `INSERT INTO job_audit (job_id, action, run_id, task_id, actor, reason, detail, created_at)
     VALUES ($1::uuid, $2, $3::uuid, $4::uuid, $5, $6, $7::jsonb, $8::timestamptz)`),
    p.jobId, p.action, p.runId ?? null, p.taskId ?? null, p.actor, p.reason || null, JSON.stringify(p.detail), now,
  );
}
