/**
 * The rule that ends a run and books it on its job, written once as SQL
 * fragments (SET lists) shared by every statement that ends runs:
 * finalise-run.ts (any outcome) and complete-only-tasks.ts (successes of
 * one-step runs, batched). The run status itself is decided by the caller
 * (finalise-run.ts: cancelled > success > timeout > failed); transitions:
 * lib/engine/states.ts RUN_TRANSITIONS and JOB_TRANSITIONS.
 *
 * Run (alias `r`): status, started_at (kept, or the first attempt's start for a run that ended
 * without having been marked running: a one-step run, docs/engine.md "Run start"),
 * finished_at = now, duration_ms = now - started_at (NULL for a run that never started), error,
 * updated_at.
 *
 * Job (alias `j`), for `runs` runs that ended in `status` (the job's last run is not booked here: it is
 * the run created last, whose own status the console reads, lib/engine/sql/last-runs.ts):
 * - success_runs += runs when success; failed_runs += runs when failed or timeout (a run
 *   re-opened by an operator is taken off them again first: runReopenCtesSql, so each run
 *   counts once, under its latest outcome);
 * - consecutive_failures: reset by success, + runs by failed/timeout, unchanged by cancelled (a
 *   failed run re-opened by an operator is taken off it again first: runReopenCtesSql);
 * - dead letter: an `active` job with dead_letter_after > 0 whose consecutive
 *   failures reach it moves to `dead_letter`, with last_error saying why: the count and the
 *   error of the run that moved it (the alarm is raised by finalise-run.ts).
 */

/**
 * SET list ending run `r`.
 * @param p.status SQL expression of the final run status (run_status)
 * @param p.now SQL expression of the end instant (timestamptz), e.g. `$2::timestamptz`
 * @param p.error SQL expression of runs.error
 * @param p.startedAt SQL expression of the start of a run not marked running (timestamptz or NULL):
 *   its first attempt's tasks.started_at
 */
export function runEndSetSql(p: { status: string; now: string; error: string; startedAt: string }): string {
  const start = `coalesce(r.started_at, ${p.startedAt})`;
  return `status = (${p.status})::run_status,
              started_at = ${start},
              finished_at = ${p.now},
              duration_ms = CASE WHEN ${start} IS NULL THEN NULL
                                 -- int4 ms holds 24.8 days; a run re-finished later (operator retry, mark success) is capped, not an error
                                 ELSE LEAST(2147483647, GREATEST(0, (extract(epoch FROM (${p.now} - ${start})) * 1000)))::int END,
              error = ${p.error},
              updated_at = ${p.now}`;
}

/**
 * SET list booking `runs` ended runs of status `status` on job `j`.
 * @param p.status SQL expression of the runs' final status (text or run_status)
 * @param p.runs SQL expression of how many runs (int)
 * @param p.error SQL expression of the ended run's error (text or NULL), kept in the dead-letter
 *   last_error so that the reason a job was paused names the failure that moved it, not only a count
 */
export function jobBookingSetSql(p: { status: string; runs: string; error: string }): string {
  const st = `(${p.status})::text`;
  const failed = `${st} IN ('failed', 'timeout')`;
  const deadLetter = `${failed} AND j.dead_letter_after > 0 AND j.status = 'active'
                              AND j.consecutive_failures + (${p.runs}) >= j.dead_letter_after`;
  return `success_runs = j.success_runs + CASE WHEN ${st} = 'success' THEN (${p.runs}) ELSE 0 END,
              failed_runs = j.failed_runs + CASE WHEN ${failed} THEN (${p.runs}) ELSE 0 END,
              consecutive_failures = CASE WHEN ${st} = 'success' THEN 0
                                          WHEN ${failed} THEN j.consecutive_failures + (${p.runs})
                                          ELSE j.consecutive_failures END,
              status = CASE WHEN ${deadLetter} THEN 'dead_letter'::job_status ELSE j.status END,
              last_error = CASE WHEN ${deadLetter}
                            THEN left('dead letter after ' || (j.consecutive_failures + (${p.runs})) || ' failed '
                                      || CASE WHEN j.consecutive_failures + (${p.runs}) = 1 THEN 'run' ELSE 'runs in a row' END
                                      || coalesce('; last error: ' || (${p.error}), ''), 2000)
                            ELSE j.last_error END`;
}

/**
 * CTEs re-opening an ended run `$run` (an operator retry, clear or mark success re-decides it):
 * `reopened_run` moves it back to running (pending if it never started) and `unbooked_job` takes
 * it off its job's ended counters and, when it had failed, off consecutive_failures, so that the
 * run is counted once, under the outcome it ends with next (jobBookingSetSql books it again): an
 * operator re-running one failed run three times does not bring its job three runs nearer to dead
 * letter. The failure stays in the task's history and in
 * handler_stats_daily, which count what handlers did (docs/recovery.md).
 *
 * The statement must follow with a comma or its main query; the caller holds the job row
 * (lock-order.ts: operator task retry / clear / mark success lock the job first).
 * @param p.runId SQL expression of the run id (uuid)
 * @param p.now SQL expression of the instant (timestamptz)
 * @param p.when SQL condition under which the run re-opens (e.g. "a task was re-opened")
 */
export function runReopenCtesSql(p: { runId: string; now: string; when: string }): string {
  return `reopened_run AS (
         UPDATE runs r
            SET status = CASE WHEN r.started_at IS NULL THEN 'pending' ELSE 'running' END::run_status,
                finished_at = NULL, duration_ms = NULL, error = NULL, updated_at = ${p.now}
           FROM (SELECT status FROM runs WHERE id = ${p.runId}) was
          WHERE r.id = ${p.runId} AND r.status NOT IN ('pending', 'running') AND (${p.when})
         RETURNING r.id, r.job_id, was.status::text AS was
       ), unbooked_job AS (
         UPDATE jobs j
            SET success_runs = GREATEST(0, j.success_runs - CASE WHEN o.was = 'success' THEN 1 ELSE 0 END),
                failed_runs = GREATEST(0, j.failed_runs - CASE WHEN o.was IN ('failed', 'timeout') THEN 1 ELSE 0 END),
                -- the run's failure is taken back too: re-failing it is still one failed run in a row
                consecutive_failures = GREATEST(0, j.consecutive_failures - CASE WHEN o.was IN ('failed', 'timeout') THEN 1 ELSE 0 END)
           FROM reopened_run o
          WHERE j.id = o.job_id::uuid AND o.was IN ('success', 'failed', 'timeout')
         RETURNING 1
       )`;
}
