import { inTransaction, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { UpdateJobInput } from '../api/schemas.ts';
import type { JobView } from './job-view.ts';
import { lockJob, mapDbError } from './store.ts';
import { applyJobChanges, versionConflict } from './update-job.ts';

/**
 * Rolls a job's configuration back to version `version`'s snapshot, as a NEW
 * version (change_type `rollback`, reason defaults to "Rollback to vN").
 * Configuration only: status (paused/active) and deletion are left as they are.
 * `expectedVersion`, when given, is an optimistic lock (409).
 */
export async function rollbackJob(
  db: Db,
  jobId: string,
  input: { version: number; reason?: string; expectedVersion?: number },
  actor: Actor,
  now = new Date(),
): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  try {
    return await inTransaction(db, async (tx) => {
      const job = await lockJob(tx, jobId);
      if (input.expectedVersion !== undefined && job.version !== input.expectedVersion) {
        throw await versionConflict(tx, job, input.expectedVersion);
      }
      const row = await tx.jobVersion.findUnique({ where: { jobId_version: { jobId: job.id, version: input.version } } });
      if (!row) throw new DomainError('not_found', `Version ${input.version} not found`, { version: 'No such version' });
      // status is not configuration (rollback leaves it as it is), and the input schema is strict
      const { status: _status, ...snapshot } = row.snapshot as Record<string, unknown>;
      const parsed = UpdateJobInput.safeParse({ ...snapshot, expectedVersion: job.version });
      if (!parsed.success) {
        throw new DomainError('unprocessable', `Version ${input.version} can no longer be applied: ${parsed.error.issues[0]?.message}`);
      }
      const { expectedVersion: _v, reason: _r, ...changes } = parsed.data;
      return applyJobChanges(tx, job, changes, actor, now, 'rollback', input.reason ?? `Rollback to v${input.version}`);
    });
  } catch (e) {
    mapDbError(e);
  }
}
