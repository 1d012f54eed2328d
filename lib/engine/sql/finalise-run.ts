import { preparedSql, type SqlClient } from '../../db.ts';
import { statsUpsertSql, type StatsDelta } from './record-handler-stats.ts';
import { jobBookingSetSql, runEndSetSql } from './run-outcome.ts';

export interface FinaliseResult {
  /** the run had open tasks: nothing changed */
  open: boolean;
  /** open tasks exist but none is running, ready, or between attempts: a deadlock suspect (or a serial_execution gate) */
  stalled: boolean;
  /** set when the run became final in this statement */
  status: string | null;
  jobId: string | null;
  /** the job moved to dead_letter in this statement */
  deadLettered: boolean;
  /** a queued serial_execution run may be waiting: run release-serial-run.ts (job is serial_execution, or another pending run exists) */
  mayRelease: boolean;
}

/**
 * Ends a run whose tasks are all final, in one statement, and books the outcome
 * on its job (the shared rule: run-outcome.ts):
 * - run status: `cancelled` if any task was cancelled; else `success` if every
 *   task succeeded or was skipped by design (error NULL); else `timeout` if a
 *   dead task's last attempt timed out (task_logs timeout -> dead of its current attempt); else `failed`.
 *   finished_at = now, duration_ms = now - started_at, error = the failure that decided the status:
 *   for `timeout` the first dead task whose last attempt timed out, else the first dead or
 *   cancelled task (by completed_at, then step key), else the first skipped with an error.
 * - job: success_runs / failed_runs (failed and timeout);
 *   consecutive_failures reset by success, +1 by failed/timeout, unchanged by
 *   cancelled; reaching dead_letter_after (> 0) moves an `active` job to
 *   `dead_letter` and inserts a dead_letter alarm (channel log).
 * No NOTIFY for the finished run: nobody listens (the console polls), and a
 * NOTIFY makes every committing transaction take the one notify-queue lock
 * (Lock:object), which serialised all completions (bench/throughput.ts).
 * When the run still has open tasks nothing changes; `stalled` then reports
 * that none of them can make progress (deadlock check, resolve-deadlock.ts).
 *
 * Lock: the run row (held by the caller) and then the job row, `NOWAIT`
 * (lib/engine/lock-order.ts: 55P03 when another transaction holds it; the
 * caller's transaction is then replayed with the job row locked first). Index: `tasks_run_open_idx` (run_id, status, pending_parents) WHERE
 * status is open makes the open/stalled probes O(log n) per completion, so a
 * 10,000-task run does not rescan itself on every completion; the final
 * aggregate scans the run's tasks once (tasks_run_step_uniq, run_id first).
 */
export async function finaliseRun(tx: SqlClient, p: { runId: string; stats?: StatsDelta }, now: Date): Promise<FinaliseResult> {
  // The handler-stats upsert rides along as the last CTE (hot row: lock it as late as possible).
  const stats = p.stats ? statsUpsertSql(p.stats, now, 3) : null;
  const rows = await tx.$queryRawUnsafe<FinaliseResult[]>(
    preparedSql('finalise-run', `WITH probe AS (
       SELECT EXISTS (SELECT 1 FROM tasks WHERE run_id = $1::uuid AND status IN ('pending', 'running', 'failed', 'timeout')) AS open,
              EXISTS (SELECT 1 FROM tasks WHERE run_id = $1::uuid AND status IN ('running', 'failed', 'timeout'))
                -- pending_parents < 1, not = 0: '= 0' matches the partial claim index, which the planner then
                -- walks (every ready task of every run) filtering on run_id; '< 1' keeps it on tasks_run_open_idx.
                OR EXISTS (SELECT 1 FROM tasks WHERE run_id = $1::uuid AND status = 'pending' AND pending_parents < 1) AS live
     ), agg AS (
       SELECT bool_or(status = 'cancelled') AS any_cancelled, min(started_at) AS first_start,
              bool_and(status = 'success' OR (status = 'skipped' AND error IS NULL)) AS all_ok,
              -- a task dead now whose current attempt timed out (an operator's mark success or
              -- retry of a timed-out task leaves its old timeout in the logs, under an older
              -- attempt or a task no longer dead); each task's logs by their full key (task,
              -- week): one partition per task; OFFSET 0 keeps it a per-task probe, never a walk of
              -- the week's logs (docs/engine.md "The hot path")
              -- the first such task's error: a run that ends timeout names the step that timed out
              (SELECT k.step_key || ': ' || coalesce(k.error, 'timed out') FROM tasks k WHERE k.run_id = $1::uuid AND k.status = 'dead'
                         AND EXISTS (SELECT 1 FROM task_logs l WHERE l.task_id = k.id AND l.scheduled_for = k.scheduled_for
                                        AND l.attempt = k.attempt AND l.from_status = 'timeout' AND l.to_status = 'dead' OFFSET 0)
                ORDER BY k.completed_at NULLS LAST, k.step_key LIMIT 1) AS timed_out_error,
              (SELECT step_key || ': ' || coalesce(error, status::text) FROM tasks
                WHERE run_id = $1::uuid AND (status IN ('dead', 'cancelled') OR (status = 'skipped' AND error IS NOT NULL))
                -- a dead or cancelled task before the tasks skipped because of it, which its own
                -- transaction ends at the same instant
                ORDER BY status = 'skipped', completed_at NULLS LAST, step_key LIMIT 1) AS first_error
         FROM tasks WHERE run_id = $1::uuid
     ), upd AS (
       UPDATE runs r
          SET ${runEndSetSql({
            status: `CASE WHEN agg.any_cancelled THEN 'cancelled' WHEN coalesce(agg.all_ok, true) THEN 'success'
                          WHEN agg.timed_out_error IS NOT NULL THEN 'timeout' ELSE 'failed' END`,
            now: '$2::timestamptz',
            error: `CASE WHEN coalesce(agg.all_ok, true) THEN NULL
                         ELSE coalesce(r.error, CASE WHEN agg.any_cancelled THEN agg.first_error ELSE coalesce(agg.timed_out_error, agg.first_error) END) END`,
            startedAt: 'agg.first_start',
          })}
         FROM agg
        -- an uncorrelated sub-select becomes a one-time filter: the aggregate is not computed while tasks are open
        WHERE NOT (SELECT open FROM probe) AND r.id = $1::uuid AND r.status IN ('pending', 'running')
       RETURNING r.id, r.job_id, r.status, r.error
     ), old_job AS (
       -- runs.job_id is text (no FK): cast it, not jobs.id, so the lookup is a jobs_pkey probe, not a seq scan.
       -- NOWAIT: a completion holds the run row and reaches the job row against the lock order
       -- (lib/engine/lock-order.ts); rather than wait (a possible cycle), it fails with 55P03 and
       -- the engine replays it with the job row locked first. A holder of the job row passes at once.
       SELECT j.id, j.status FROM jobs j, upd WHERE j.id = upd.job_id::uuid FOR UPDATE OF j NOWAIT
     ), job AS (
       UPDATE jobs j
          SET ${jobBookingSetSql({ status: 'upd.status', runs: '1', error: 'upd.error' })}
         FROM upd, old_job
        WHERE j.id = old_job.id
       RETURNING j.id, j.key, j.status, j.consecutive_failures, j.block_strategy, old_job.status AS old_status, upd.id AS run_id
     ), alarm AS (
       INSERT INTO alarms (job_id, run_id, type, level, channel, target, content, created_at, updated_at, next_attempt_at)
       SELECT id::text, run_id::text, 'dead_letter', 'error', 'log', '',
              jsonb_build_object('jobKey', key, 'consecutiveFailures', consecutive_failures,
                                 'message', 'job ' || key || ' moved to dead letter after ' || consecutive_failures || ' consecutive failed runs'),
              $2::timestamptz, $2::timestamptz, $2::timestamptz
         FROM job WHERE status = 'dead_letter' AND old_status <> 'dead_letter'
       RETURNING 1
     )${stats ? `, stats AS (${stats.sql} RETURNING 1)` : ''}
     SELECT probe.open, (probe.open AND NOT probe.live) AS stalled,
            (SELECT status::text FROM upd) AS status, (SELECT job_id FROM upd) AS "jobId",
            (SELECT count(*) FROM alarm) > 0 AS "deadLettered",
            (SELECT count(*) FROM job WHERE block_strategy = 'serial_execution') > 0
              OR EXISTS (SELECT 1 FROM runs o, upd WHERE o.job_id = upd.job_id AND o.status = 'pending' AND o.id <> upd.id) AS "mayRelease",
            ${stats ? '(SELECT count(*) FROM stats)::int' : '0'} AS "_stats"
       FROM probe`),
    p.runId, now, ...(stats?.params ?? []),
  );
  return rows[0];
}
