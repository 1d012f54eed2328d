import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * Deadlock (docs/design.md §4: "a run whose remaining tasks can never become ready
 * is marked failed with a deadlock log entry instead of hanging"): called when
 * finalise-run found open tasks but none running, ready or between attempts.
 * If some root task is held by a serial_execution gate the run is merely
 * queued and nothing changes. Otherwise every pending task is moved to
 * `skipped` with error and task_logs message 'deadlock: tasks a, b can never
 * become ready' (a cycle that bypassed validation, or counters broken by hand),
 * so the run can then end `failed`.
 *
 * Lock: the run row (held) and its pending task rows. Index: tasks_run_open_idx.
 */
export async function resolveDeadlock(tx: SqlClient, p: { runId: string }, now: Date): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<{ steps: string[] | null }[]>(
    preparedSql('resolve-deadlock', `WITH stuck AS (
       SELECT t.id, t.step_key FROM tasks t
        WHERE t.run_id = $1::uuid AND t.status = 'pending'
          AND NOT EXISTS (SELECT 1 FROM tasks g WHERE g.run_id = $1::uuid AND g.status = 'pending' AND g.pending_parents > 0
                            AND NOT EXISTS (SELECT 1 FROM task_dependencies d WHERE d.task_id = g.id))
          AND NOT EXISTS (SELECT 1 FROM tasks l WHERE l.run_id = $1::uuid
                            AND (l.status IN ('running', 'failed', 'timeout') OR (l.status = 'pending' AND l.pending_parents = 0)))
     ), msg AS (
       SELECT 'deadlock: tasks ' || string_agg(step_key, ', ' ORDER BY step_key) || ' can never become ready' AS m,
              array_agg(step_key ORDER BY step_key) AS steps
         FROM stuck
     ), upd AS (
       UPDATE tasks t SET status = 'skipped', error = msg.m, completed_at = $2::timestamptz, version = t.version + 1,
              updated_at = $2::timestamptz
         FROM stuck, msg WHERE t.id = stuck.id AND t.status = 'pending'
       RETURNING t.id, t.run_id, t.scheduled_for, t.attempt, msg.m
     ), log AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'pending', 'skipped', m, $2::timestamptz FROM upd
       RETURNING 1
     ), run AS (
       UPDATE runs SET error = (SELECT m FROM msg), updated_at = $2::timestamptz
        WHERE id = $1::uuid AND EXISTS (SELECT 1 FROM upd)
       RETURNING id
     )
     SELECT msg.steps, (SELECT count(*) FROM log)::int AS logged, (SELECT count(*) FROM run)::int AS runs FROM msg`),
    p.runId, now,
  );
  return rows[0]?.steps ?? [];
}
