import { preparedSql, type SqlClient } from '../../db.ts';
import { CANCEL_CHANNEL } from '../notify.ts';

/**
 * Cancels every open task of the given runs: pending -> cancelled and
 * running -> cancelled (its worker's late completion then fails the
 * compare-and-set), each with the cancel's message as its error (a failure of an earlier attempt,
 * kept on a task waiting to retry, stays in that attempt's task_logs row), one task_logs row each, and NOTIFYs `tickflow_cancel` with
 * the ids of the running ones so their workers abort them. A task claimed ahead and
 * cancelled before its slot (held, started_at after `now`) loses the planned start the claim
 * wrote, and so does its run when the claim gave it that start: it never started, so neither
 * gets a start or a duration (docs/on-time.md "Claiming ahead"). With `p.heldNotStarted` (the
 * caller decided, on the locked rows, that no held task started: its worker's lease expired before
 * the start was recorded, cancel-ahead-runs.ts withdrawMissedAheadRun), every held task loses its
 * start, whenever it lies, and so does the run.
 *
 * Lock: row locks on the runs' open tasks, in ascending id; callers hold the
 * job row and the run rows first (lib/engine/lock-order.ts), which a planned start also writes. Index: tasks_run_step_uniq (run_id first).
 */
export async function cancelRunTasks(
  tx: SqlClient,
  p: { runIds: string[]; message: string; actor: string; heldNotStarted?: boolean },
  now: Date,
): Promise<{ cancelled: number; runningIds: string[] }> {
  const rows = await tx.$queryRawUnsafe<{ cancelled: number; runningIds: string[] }[]>(
    preparedSql('cancel-run-tasks', `WITH old AS (
       SELECT id, status, updated_at FROM tasks
        WHERE run_id = ANY($1::uuid[]) AND status IN ('pending', 'running')
        ORDER BY id
        FOR UPDATE
     ), upd AS (
       UPDATE tasks t SET status = 'cancelled', completed_at = $4::timestamptz, lease_until = NULL, held = false,
              -- a held task's start still to come is its planned start (claimed ahead), not a start
              started_at = CASE WHEN t.held AND ($5::boolean OR t.started_at > $4::timestamptz) THEN NULL ELSE t.started_at END,
              error = $2, version = t.version + 1, updated_at = $4::timestamptz
         FROM old WHERE t.id = old.id
       RETURNING t.id, t.run_id, t.scheduled_for, t.attempt, t.locked_by, old.status AS from_status, old.updated_at AS before_at
     ), logs AS (
       -- no earlier than the task's previous change: the cancel's clock is read before it waits
       -- for its locks, and a claim may have committed meanwhile with a later reading
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, node_id, created_at)
       SELECT id, run_id, scheduled_for, attempt, from_status, 'cancelled', $2, jsonb_build_object('actor', $3::text),
              CASE WHEN from_status = 'running' THEN locked_by END, GREATEST($4::timestamptz, before_at)
         FROM upd
       RETURNING 1
     ), unstarted AS (
       -- A run of several tasks took its first claim's planned start as its own (claim-tasks.ts):
       -- with those planned starts gone, its start is its tasks' real ones, or none.
       UPDATE runs r SET started_at = (SELECT min(x.started_at) FROM tasks x
                                        WHERE x.run_id = r.id AND x.scheduled_for = r.scheduled_for
                                          AND NOT (x.held AND ($5::boolean OR x.started_at > $4::timestamptz)))
        WHERE r.id = ANY($1::uuid[]) AND (r.started_at > $4::timestamptz OR ($5::boolean AND r.started_at IS NOT NULL))
       RETURNING 1
     ), running AS (
       SELECT coalesce(array_agg(id::text), '{}') AS ids FROM upd WHERE from_status = 'running'
     )
     SELECT (SELECT count(*) FROM upd)::int AS cancelled, running.ids AS "runningIds",
            (SELECT count(*) FROM logs)::int AS logged, (SELECT count(*) FROM unstarted)::int AS unstarted,
            -- NOTIFY payloads are capped at 8000 bytes: at most 150 ids per notification.
            (SELECT count(*) FROM (SELECT pg_notify('${CANCEL_CHANNEL}', json_agg(x.id)::text)
                                     FROM (SELECT id, (row_number() OVER () - 1) / 150 AS g FROM upd WHERE from_status = 'running') x
                                    GROUP BY x.g) n)::int AS notified
       FROM running`),
    p.runIds, p.message, p.actor, now, p.heldNotStarted ?? false,
  );
  return { cancelled: rows[0].cancelled, runningIds: rows[0].runningIds };
}
