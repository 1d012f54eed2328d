import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DomainError } from '../errors.ts';
import { canFireProblem, computeNextRunAt } from './job-input.ts';
import type { JobScheduleColumns, JobView } from './job-view.ts';
import { jobAnswer, loadGraph, lockJob, recordVersion } from './store.ts';

/**
 * Resumes a paused or dead-lettered job: status `active`, consecutive_failures
 * 0, last_error cleared, next_run_at recomputed from `now` (no catch-up of the
 * paused period). New version, change_type `resume`. Resuming an active job
 * changes nothing.
 * @throws DomainError('validation') naming the schedule field when the job could
 *   never fire again (a `once` whose run-at has passed — it already fired —, a
 *   window that has ended): it would show as active and never run. The message
 *   names the job, for bulk resumes.
 */
export async function resumeJob(db: Db, id: string, actor: Actor, opts: { reason?: string } = {}, now = new Date()): Promise<JobView> {
  requireCan(actor, 'jobs.write');
  return inTransaction(db, async (tx) => {
    const job = await lockJob(tx, id);
    if (job.status === 'active' && job.consecutiveFailures === 0) {
      const g = await loadGraph(tx, job);
      return jobAnswer(tx, g);
    }
    const problem = canFireProblem(job, now);
    if (problem) throw new DomainError('validation', resumeRefusalMessage(job.key, problem), { [problem.field]: problem.message });
    const updated = await tx.job.update({
      where: { id: job.id },
      data: {
        status: 'active',
        consecutiveFailures: 0,
        lastError: null,
        nextRunAt: computeNextRunAt(job, now),
        version: { increment: 1 },
        updatedBy: actor.name,
        updatedAt: now,
      },
    });
    return recordVersion(tx, updated, 'resume', actor, opts.reason, now);
  });
}

function resumeRefusalMessage(key: string, problem: { field: string; message: string }): string {
  return `Job ${key} cannot be resumed: ${problem.field}: ${problem.message}; change its schedule first`;
}

/**
 * Why resumeJob would refuse this job at `now`, in the words of its 400, or null when Resume would go through (an
 * active job, a manual one, a schedule with a fire to come). The job page disables Resume with it, so a `once` job
 * that has fired (the tick paused it) or a job whose window has ended is not offered an action that always fails.
 * The rule is canFireProblem (lib/jobs/job-input.ts), over the job as getJob answers it.
 */
export function resumeRefusal(job: Pick<JobView, 'id' | 'key' | 'status' | 'schedule' | 'timezone' | 'startAt' | 'endAt' | 'staggerSeconds' | 'createdAt'>, now: Date): string | null {
  if (job.status === 'active') return null;
  const s = job.schedule;
  const columns: JobScheduleColumns = {
    id: job.id,
    scheduleKind: s.kind,
    cronExpression: s.kind === 'cron' ? s.cron : null,
    timezone: job.timezone,
    intervalSeconds: s.kind === 'interval' ? s.intervalSeconds : null,
    runAt: s.kind === 'once' ? new Date(s.runAt) : null,
    startAt: job.startAt ? new Date(job.startAt) : null,
    endAt: job.endAt ? new Date(job.endAt) : null,
    staggerSeconds: job.staggerSeconds,
    createdAt: new Date(job.createdAt),
  };
  const problem = canFireProblem(columns, now);
  return problem ? resumeRefusalMessage(job.key, problem) : null;
}
