/**
 * The week of the history partitions (docs/operations.md "History partitions"): runs, tasks,
 * task_dependencies, task_logs and task_log_lines are range-partitioned by the run's slot
 * (scheduled_for), one partition per UTC week starting on Monday 00:00.
 */

const DAY_MS = 86_400_000;
/** A week in milliseconds. */
export const WEEK_MS = 7 * DAY_MS;

/** The Monday 00:00 UTC of the week holding `at`. */
export function weekStart(at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(day - dow * DAY_MS);
}
