/**
 * A job whose schedule cannot be evaluated (bad cron, unknown zone, corrupt
 * row), or that cannot be fired for a non-transient reason, is taken out of the tick: paused, next_run_at null, last_error set, so
 * one bad row never stops the tick for every other job (docs/engine-cases.md case 1,
 * xxl-job #1270). Resuming the job after fixing it recomputes next_run_at.
 * Primary-key UPDATE on the row the tick holds locked.
 */
import type { Db } from '../../../db.ts';

export async function markJobScheduleError(db: Db, input: { jobId: string; error: string }, now: Date = new Date()): Promise<void> {
  await db.$executeRaw`
    UPDATE jobs
       SET status = 'paused', next_run_at = NULL, last_error = ${input.error.slice(0, 2000)},
           updated_at = ${now}, updated_by = 'system'
     WHERE id = ${input.jobId}::uuid`;
}

