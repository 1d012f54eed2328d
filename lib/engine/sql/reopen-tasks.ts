import { preparedSql, type SqlClient } from '../../db.ts';
import { DomainError } from '../../errors.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { readyAtOnReleaseSql } from './stats-outcome.ts';
import { runReopenCtesSql } from './run-outcome.ts';
import { pgErrorCode } from '../pg.ts';
import { retryOfRun, slotTakenSince } from './covered-slots.ts';

export interface ReopenRow {
  id: string;
  /** the recomputed parent counter */
  pendingParents: number;
  /** move to pending (operator retry) — false: only the counter changes */
  reopen: boolean;
  /** attempt + 1 */
  bump: boolean;
  message: string;
}

/**
 * Operator retry, set-based: re-opens tasks (dead | skipped | cancelled ->
 * pending, schedule_at = now, lease, start, end and result cleared), sets recomputed
 * pending_parents counters (also on pending children waiting for them), writes
 * one task_logs row per re-opened task, moves a finished run back to running
 * (pending if it never started) and off its job's ended counters (run-outcome.ts
 * runReopenCtesSql), and NOTIFYs workers.
 *
 * Lock: the run row (held by the caller) and the listed task rows. Index:
 * tasks primary key (unnest join), runs primary key.
 * @throws DomainError('conflict') when the run is a schedule or backfill run retried as a new run
 *   (retry-run.ts: the slot's work goes on there, covered-slots.ts retryOfRun); when the run is a schedule or backfill run cancelled before it
 *   started (docs/on-time.md, docs/recovery.md) whose slot has another run since (a later fire of
 *   the slot, or a backfill: covered-slots.ts slotTakenSince, decided with the job row held by the
 *   caller): re-opening it would run the slot twice. runs_schedule_fire_uniq and
 *   runs_backfill_slot_uniq refuse it too (23505; a status change can violate no other unique index);
 *   when the run has ended and another run of its job is active (assertJobHasNoOtherActiveRun)
 */
export async function reopenTasks(
  tx: SqlClient,
  p: { runId: string; rows: ReopenRow[]; actor: string },
  now: Date,
): Promise<number> {
  await assertRunMayReopen(tx, p.runId);
  await assertJobHasNoOtherActiveRun(tx, p.runId);
  let res: { reopened: number }[];
  try {
    res = await tx.$queryRawUnsafe<{ reopened: number }[]>(
      preparedSql('reopen-tasks', `WITH v AS (
         SELECT * FROM unnest($2::uuid[], $3::int[], $4::boolean[], $5::boolean[], $6::text[]) AS v(id, pending_parents, reopen, bump, message)
       ), old AS (
         SELECT t.id, t.status FROM tasks t JOIN v ON v.id = t.id FOR UPDATE OF t
       ), upd AS (
         UPDATE tasks t
            SET status = CASE WHEN v.reopen THEN 'pending'::task_status ELSE t.status END,
                pending_parents = v.pending_parents,
                -- released now: a re-opened task, or a waiting child whose recomputed counter reached 0
                ready_at = CASE WHEN v.reopen OR t.pending_parents > 0
                                THEN ${readyAtOnReleaseSql('t', 'v.pending_parents', '$7::timestamptz')} ELSE t.ready_at END,
                attempt = t.attempt + CASE WHEN v.bump THEN 1 ELSE 0 END,
                schedule_at = CASE WHEN v.reopen THEN $7::timestamptz ELSE t.schedule_at END,
                locked_by = CASE WHEN v.reopen THEN NULL ELSE t.locked_by END,
                lease_until = CASE WHEN v.reopen THEN NULL ELSE t.lease_until END,
                -- the attempt to come has not started: an earlier attempt's start would give a task
                -- that ends without running again (skipped, cancelled) that attempt's duration
                started_at = CASE WHEN v.reopen THEN NULL ELSE t.started_at END,
                completed_at = CASE WHEN v.reopen THEN NULL ELSE t.completed_at END,
                error = CASE WHEN v.reopen THEN NULL ELSE t.error END,
                output = CASE WHEN v.reopen THEN NULL ELSE t.output END,
                exit_code = CASE WHEN v.reopen THEN NULL ELSE t.exit_code END,
                version = t.version + 1, updated_at = $7::timestamptz
           FROM v, old
          WHERE t.id = v.id AND old.id = v.id
         RETURNING t.id, t.run_id, t.scheduled_for, t.attempt, t.pending_parents, old.status AS from_status, v.reopen, v.message
       ), logs AS (
         INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, created_at)
         SELECT id, run_id, scheduled_for, attempt, from_status, 'pending', message, jsonb_build_object('actor', $8::text), $7::timestamptz
           FROM upd WHERE reopen
         RETURNING 1
       ), ${runReopenCtesSql({ runId: '$1::uuid', now: '$7::timestamptz', when: 'EXISTS (SELECT 1 FROM upd WHERE reopen)' })}
       SELECT (SELECT count(*) FROM upd WHERE reopen)::int AS reopened, (SELECT count(*) FROM logs)::int AS logged,
              (SELECT count(*) FROM reopened_run)::int AS runs, (SELECT count(*) FROM unbooked_job)::int AS unbooked,
              (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '')
                                      WHERE EXISTS (SELECT 1 FROM upd WHERE reopen AND pending_parents = 0)) n)::int AS notified`),
      p.runId, p.rows.map((r) => r.id), p.rows.map((r) => r.pendingParents), p.rows.map((r) => r.reopen),
      p.rows.map((r) => r.bump), p.rows.map((r) => r.message), now, p.actor,
    );
  } catch (err) {
    if (pgErrorCode(err) !== '23505') throw err;
    throw slotConflict(p.runId, null);
  }
  return res[0].reopened;
}

/**
 * Refuses to re-open a run whose slot's work goes on elsewhere (docs/recovery.md "Exactly once per
 * slot"): a run of a schedule or backfill retry chain that was retried as a new run
 * (covered-slots.ts retryOfRun), or a schedule or backfill run cancelled before it started whose
 * slot has a run of its own since (slotTakenSince). Every operator re-open checks it first: task
 * retry, clear and mark success (mark-task-success.ts, which may re-open nothing but the marked task).
 * Call with the job and run rows held. @throws DomainError('conflict') naming the other run.
 */
export async function assertRunMayReopen(tx: SqlClient, runId: string): Promise<void> {
  const retried = await retryOfRun(tx, runId, { slotRunsOnly: true });
  if (retried) {
    throw new DomainError('conflict', `run ${runId} was retried as run ${retried.id} (${retried.status}): retry or re-run that run instead`, undefined, { retryRunId: retried.id });
  }
  const taken = await slotTakenSince(tx, runId);
  if (taken) throw slotConflict(runId, taken.id);
}

/**
 * Refuses to re-open a run that has ended while another run of its job is active (pending or
 * running): every block strategy keeps one run of a job going at a time (docs/design.md §4:
 * discard_later skips a new run, serial_execution queues it, cover_early cancels the older one),
 * and a re-open would run two side by side, outside the strategy, which decides only when a run
 * is created. A run created ahead of its slot is not active yet: the caller withdraws it first
 * (cancel-ahead-runs.ts withdrawAheadRun). A run still open re-opens nothing of the job's and is
 * let through. Call with the job and run rows held (lock-job-row.ts lockJobRowForReopen), so no
 * trigger of the job commits between the check and the re-open.
 * Index: runs primary key, runs_active_idx (job_id, created_at) WHERE status IN (pending, running).
 * @param opts.ended the caller saw the run ended when it locked it, and its action already moved
 *   the run's row (mark-task-success.ts): checked whatever the row says now
 * @throws DomainError('conflict') naming the active run (detail.activeRunId)
 */
export async function assertJobHasNoOtherActiveRun(tx: SqlClient, runId: string, opts: { ended?: boolean } = {}): Promise<void> {
  const [active] = await tx.$queryRawUnsafe<{ id: string; status: string }[]>(
    preparedSql('other-active-run', `WITH me AS (SELECT id, job_id, status FROM runs WHERE id = $1::uuid)
      SELECT o.id, o.status::text AS status FROM me
        JOIN runs o ON o.job_id = me.job_id AND o.status IN ('pending', 'running') AND o.id <> me.id
       WHERE $2::boolean OR me.status NOT IN ('pending', 'running')
       ORDER BY o.created_at LIMIT 1`),
    runId, opts.ended ?? false,
  );
  if (active) {
    throw new DomainError('conflict', `run ${runId} has ended and run ${active.id} of its job is ${active.status}: a job runs one run at a time, so re-open this run once that one has ended`,
      undefined, { activeRunId: active.id, status: active.status });
  }
}

function slotConflict(runId: string, other: string | null): DomainError {
  return new DomainError('conflict', `run ${runId} was cancelled before it started, and its slot has a run of its own since${other ? ` (${other})` : ''}: retry or re-run that run instead`);
}
