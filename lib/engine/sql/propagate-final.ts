import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { readyAtOnReleaseSql } from './stats-outcome.ts';
import { intoJoinSql, releasedCount, releaseJoinTasks } from './release-joins.ts';

/**
 * DAG propagation from tasks that just became final (docs/design.md §4 dependency
 * types), in one statement:
 *
 * | parent ended | hard child | soft child | on_failure child |
 * |---|---|---|---|
 * | success   | pending_parents - 1 | - 1 | skipped by design (error NULL) |
 * | dead      | skipped (error names the parent) | - 1 | - 1 |
 * | cancelled | skipped | - 1 | skipped |
 * | skipped   | skipped (inherits "by design" or not) | - 1 | skipped |
 *
 * Skips recurse down hard and on_failure edges (WITH RECURSIVE over
 * task_dependencies), and the soft children of every newly skipped task are
 * decremented. A "- 1" on a join task (a task of several parents) is instead its release
 * check in a second statement (release-joins.ts releaseJoinTasks), which sees this
 * statement's ends; the caller holds the run FOR UPDATE. Each skip writes a task_logs row naming the parent whose outcome
 * caused it (docs/engine-cases.md case 5). `edgeTypes` limits the first level to the edge
 * types the caller has not handled yet (finish-attempt already decremented the
 * hard/soft children of a success).
 *
 * Lock: row locks on the affected pending descendants only. Index:
 * task_dependencies_parent_idx (parent_task_id) at every level, so the cost is
 * proportional to the out-edges of the tasks that change, not to the run.
 */
export async function propagateFinal(
  tx: SqlClient,
  p: { parentIds: string[]; edgeTypes: ('hard' | 'soft' | 'on_failure')[] },
  now: Date,
): Promise<{ skipped: number; ready: number }> {
  const rows = await tx.$queryRawUnsafe<{ skipped: number; ready: number; joinParents: string[]; joinWeeks: Date[] }[]>(
    preparedSql('propagate-final', `WITH RECURSIVE src AS (
       SELECT id, step_key, status FROM tasks WHERE id = ANY($1::uuid[])
     ), walk(task_id, parent_id, parent_step, parent_status, by_design) AS (
       SELECT d.task_id, s.id, s.step_key, s.status, (d.dep_type = 'on_failure' AND s.status = 'success')
         FROM src s
         JOIN task_dependencies d ON d.parent_task_id = s.id
         JOIN tasks c ON c.id = d.task_id AND c.scheduled_for = d.scheduled_for
        -- status::text: a child is read by its key from d, never found through a status index
        -- (docs/engine.md "The hot path")
        WHERE d.dep_type = ANY($2::dep_type[]) AND c.status::text = 'pending'
          AND ((d.dep_type = 'hard' AND s.status <> 'success') OR (d.dep_type = 'on_failure' AND s.status <> 'dead'))
       UNION
       SELECT d.task_id, w.task_id, p.step_key, 'skipped'::task_status, w.by_design
         FROM walk w
         JOIN tasks p ON p.id = w.task_id
         JOIN task_dependencies d ON d.parent_task_id = w.task_id
         JOIN tasks c ON c.id = d.task_id AND c.scheduled_for = d.scheduled_for
        WHERE d.dep_type IN ('hard', 'on_failure') AND c.status::text = 'pending'
     ), skip AS (
       -- a task reached both ways is skipped by failure, not by design (conservative for the run's status)
       SELECT DISTINCT ON (task_id) task_id, parent_id, parent_step, parent_status, by_design
         FROM walk ORDER BY task_id, by_design, parent_step
     ), upd_skip AS (
       UPDATE tasks t
          SET status = 'skipped', completed_at = $3::timestamptz, version = t.version + 1, updated_at = $3::timestamptz,
              error = CASE WHEN k.by_design THEN NULL ELSE 'skipped: parent ' || k.parent_step || ' ended ' || k.parent_status END,
              output = CASE WHEN k.by_design THEN jsonb_build_object('skipped', 'by design', 'parent', k.parent_step) ELSE t.output END
         FROM skip k
        WHERE t.id = k.task_id AND t.status = 'pending'
       RETURNING t.id, t.run_id, t.scheduled_for, t.attempt, k.parent_id, k.parent_step, k.parent_status, k.by_design
     ), log_skip AS (
       INSERT INTO task_logs (task_id, run_id, scheduled_for, attempt, from_status, to_status, message, detail, created_at)
       SELECT id, run_id, scheduled_for, attempt, 'pending', 'skipped',
              CASE WHEN by_design
                   THEN 'skipped by design: parent ' || parent_step || ' ' || parent_status || ' (on_failure branch not taken)'
                   ELSE 'skipped: parent ' || parent_step || ' ended ' || parent_status END,
              jsonb_build_object('parentTaskId', parent_id, 'parentStep', parent_step, 'parentStatus', parent_status,
                                 'byDesign', by_design),
              $3::timestamptz
         FROM upd_skip
       RETURNING 1
     ), resolved AS (
       SELECT d.task_id, d.parent_task_id, d.scheduled_for FROM src s JOIN task_dependencies d ON d.parent_task_id = s.id
        WHERE d.dep_type = ANY($2::dep_type[])
          AND ((d.dep_type = 'hard' AND s.status = 'success') OR d.dep_type = 'soft'
               OR (d.dep_type = 'on_failure' AND s.status = 'dead'))
       UNION ALL
       SELECT d.task_id, d.parent_task_id, d.scheduled_for FROM skip k JOIN task_dependencies d ON d.parent_task_id = k.task_id WHERE d.dep_type = 'soft'
     ), split AS MATERIALIZED (
       SELECT r.*, ${intoJoinSql('r')} AS into_join FROM resolved r WHERE r.task_id NOT IN (SELECT task_id FROM skip)
     ), dec AS (
       -- tasks of one parent; join tasks are released by the caller's next statement (release-joins.ts)
       UPDATE tasks t SET pending_parents = t.pending_parents - x.n, updated_at = $3::timestamptz,
                          ready_at = ${readyAtOnReleaseSql('t', 't.pending_parents - x.n', '$3::timestamptz')}
         FROM (SELECT task_id, count(*)::int AS n FROM split WHERE NOT into_join GROUP BY task_id) x
        WHERE t.id = x.task_id AND t.status = 'pending'
       RETURNING t.pending_parents
     ), counts AS (
       SELECT (SELECT count(*) FROM upd_skip)::int AS skipped, (SELECT count(*) FROM dec WHERE pending_parents = 0)::int AS ready,
              (SELECT count(*) FROM log_skip)::int AS logged
     )
     SELECT skipped, ready, logged, coalesce(jp.ids, '{}') AS "joinParents", coalesce(jp.weeks, '{}') AS "joinWeeks",
            (SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE counts.ready > 0) n)::int AS notified
       FROM counts,
            -- the parents whose ends may release a join, each with its week (the same row: aligned arrays)
            (SELECT array_agg(parent_task_id) AS ids, array_agg(scheduled_for) AS weeks
               FROM (SELECT DISTINCT parent_task_id, scheduled_for FROM split WHERE into_join) w) jp`),
    p.parentIds, p.edgeTypes, now,
  );
  const row = rows[0];
  const released = row.joinParents.length === 0 ? 0
    : releasedCount(await releaseJoinTasks(tx, { parentIds: row.joinParents, weeks: row.joinWeeks }, now));
  return { skipped: row.skipped, ready: row.ready + released };
}
