/**
 * Moves a fired job to its next due instant (or ends its schedule), on the row
 * the tick already holds locked (lockDueJobs). Primary-key UPDATE.
 * - next_run_at: the next due instant, or null when the schedule has no more
 *   fire times (once fired, window over, year range exhausted);
 * - pause: true turns an exhausted schedule into `paused` (docs/engine-cases.md case 1);
 * - lastError: null clears a previous tick error, a string records one.
 * The job's config `version` is not bumped: the tick is not an edit.
 */
import type { Db } from '../../../db.ts';

export async function advanceJob(
  db: Db,
  input: { jobId: string; nextRunAt: Date | null; pause: boolean; lastError: string | null },
  now: Date = new Date(),
): Promise<void> {
  await db.$executeRaw`
    UPDATE jobs
       SET next_run_at = ${input.nextRunAt},
           last_error = ${input.lastError},
           status = CASE WHEN ${input.pause} THEN 'paused'::job_status ELSE status END,
           updated_at = CASE WHEN ${input.pause} THEN ${now} ELSE updated_at END,
           updated_by = CASE WHEN ${input.pause} THEN 'system' ELSE updated_by END
     WHERE id = ${input.jobId}::uuid`;
}
