import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { readyAtOnReleaseSql } from './stats-outcome.ts';

/**
 * Join tasks (docs/engine.md "Join tasks"): a task with two or more dependency rows (parents). Its
 * parents may end in different transactions at the same time (a worker's DAG batches share their
 * run, complete-dag-tasks.ts), so a join is never decremented by a parent's end: each parent would
 * write the join's row, and every batch would wait for the others' commit on it. Instead a join
 * keeps `pending_parents` > 0 (its parent count when created, or a recount written by an
 * operator's re-open) until a statement that sees every parent's end releases it at once
 * (releaseJoinTasks). A task with one parent is released by its parent's end, as before.
 *
 * SQL true when dependency row `dep` (alias of task_dependencies) leads into a join: its child
 * has another parent. Index: task_dependencies_uniq (task_id, parent_task_id, scheduled_for).
 */
export function intoJoinSql(dep: string): string {
  return `EXISTS (SELECT 1 FROM task_dependencies jn WHERE jn.task_id = ${dep}.task_id AND jn.scheduled_for = ${dep}.scheduled_for
                   AND jn.parent_task_id <> ${dep}.parent_task_id)`;
}

/**
 * SQL true when dependency row `dep` is satisfied by its parent row `parent` (docs/design.md §4
 * dependency types, the rule propagate-final.ts applies one parent at a time): a hard edge by a
 * success, a soft edge by any final status, an on_failure edge by `dead`. An edge whose parent
 * ended otherwise skips the child instead (propagate-final.ts), so a pending child never waits on it.
 */
export function edgeSatisfiedSql(dep: string, parent: string): string {
  return `((${dep}.dep_type = 'hard' AND ${parent}.status = 'success')
        OR (${dep}.dep_type = 'soft' AND ${parent}.status IN ('success', 'dead', 'cancelled', 'skipped'))
        OR (${dep}.dep_type = 'on_failure' AND ${parent}.status = 'dead'))`;
}

/**
 * SQL of a SELECT giving, for each task of `source` (the name of a CTE or table with columns id
 * and scheduled_for), `n`: how many of its dependencies are not satisfied by their
 * parent's current status (edgeSatisfiedSql) — what its pending_parents must be when it goes back
 * to pending for another attempt or on a hand-back (retry-or-bury.ts, release-tasks.ts): an operator
 * may have re-opened one of its parents while its attempt was running. For a CTE before the UPDATE
 * that uses it, never as a sub-select inside an UPDATE of tasks (docs/operations.md "History
 * partitions": PostgreSQL 18.4 crashed on a correlated sub-select with the partition key there).
 */
export function unsatisfiedParentsSql(source: string): string {
  return `SELECT src.id, count(u.parent_task_id) FILTER (WHERE NOT ${edgeSatisfiedSql('u', 'q')})::int AS n
            FROM ${source} src
            LEFT JOIN task_dependencies u ON u.task_id = src.id AND u.scheduled_for = src.scheduled_for
            LEFT JOIN tasks q ON q.id = u.parent_task_id AND q.scheduled_for = u.scheduled_for
           GROUP BY src.id`;
}

/**
 * Releases the pending tasks with parents, among the children of `parentIds` (or every task of
 * `runId`), whose every dependency is satisfied (edgeSatisfiedSql) and that still wait
 * (pending_parents > 0): pending_parents = 0, ready_at set (stats-outcome.ts readyAtOnReleaseSql),
 * and one NOTIFY tickflow_tasks ('' = ready now) when any was released (not with `opts.notify`
 * false: the caller notifies after its commit, notify.ts notifyTasksReadyNow). A task released already
 * is left alone, and one that another transaction holds is skipped (only another such release
 * can hold a waiting join while the runs are held), so two such statements racing for one join
 * release it once and never wait for each other.
 *
 * The statement must see every parent's end: call it in a new statement after the ends committed,
 * holding the runs (FOR SHARE at least, taken by an EARLIER statement of the transaction, so this
 * one's READ COMMITTED snapshot starts after the lock: lock-order.ts) so that no re-open, cancel or
 * failure of the run commits between its snapshot and its writes; or in the transaction that
 * wrote the ends, holding the runs FOR UPDATE. Two batches that end a join's last two parents side
 * by side then each call it after their commit; the later commit's call sees both.
 *
 * Lock: the released tasks, ascending id, SKIP LOCKED. Index: task_dependencies_parent_idx for the children,
 * task_dependencies_uniq and tasks_pkey for each child's parents; tasks_run_open_idx with `runId`.
 * @param p.parentIds with p.weeks (their scheduled_for, the partition key, same order): the tasks
 *   whose end may release their children; or p.runId (with p.week) to look at the whole run
 *   (finishing a stalled run: settle.ts)
 * @returns released tasks per run (run id -> count)
 */
export async function releaseJoinTasks(
  tx: SqlClient,
  p: { parentIds: string[]; weeks: Date[] } | { runId: string; week: Date },
  now: Date,
  opts: { notify?: boolean } = {},
): Promise<Map<string, number>> {
  const notify = opts.notify ?? true;
  const byParents = 'parentIds' in p;
  if (byParents && p.parentIds.length === 0) return new Map();
  const candidates = byParents
    ? `SELECT DISTINCT d.task_id AS id, d.scheduled_for
         FROM unnest($1::uuid[], $2::timestamptz[]) AS s(id, scheduled_for)
         JOIN task_dependencies d ON d.parent_task_id = s.id AND d.scheduled_for = s.scheduled_for`
    : `SELECT t.id, t.scheduled_for FROM tasks t
        WHERE t.run_id = $1::uuid AND t.scheduled_for = $2::timestamptz AND t.status = 'pending' AND t.pending_parents > 0
          AND EXISTS (SELECT 1 FROM task_dependencies d WHERE d.task_id = t.id AND d.scheduled_for = t.scheduled_for)`;
  const rows = await tx.$queryRawUnsafe<{ runId: string; n: number }[]>(
    preparedSql(byParents ? (notify ? 'release-join-tasks' : 'release-join-tasks-quiet') : (notify ? 'release-join-tasks-of-run' : 'release-join-tasks-of-run-quiet'), `WITH cand AS (
       ${candidates}
     ), ok AS (
       -- each candidate by its key (OFFSET 0: after its dependency row, never by a walk of its week)
       SELECT c.id, c.scheduled_for FROM cand
        CROSS JOIN LATERAL (SELECT id, scheduled_for, status, pending_parents FROM tasks
                             WHERE id = cand.id AND scheduled_for = cand.scheduled_for OFFSET 0) c
        WHERE c.status::text = 'pending' AND c.pending_parents > 0
          AND NOT EXISTS (SELECT 1 FROM task_dependencies u
                            JOIN tasks q ON q.id = u.parent_task_id AND q.scheduled_for = u.scheduled_for
                           WHERE u.task_id = c.id AND u.scheduled_for = c.scheduled_for AND NOT ${edgeSatisfiedSql('u', 'q')})
     ), lc AS (
       -- Ascending id, and a task another transaction holds is left to it (SKIP LOCKED): while the
       -- caller holds the run, only another such release can hold a waiting join, and it is
       -- releasing it (it locks only the tasks it found releasable).
       SELECT k.id, k.scheduled_for FROM (SELECT id, scheduled_for FROM ok ORDER BY id) o
        CROSS JOIN LATERAL (SELECT id, scheduled_for FROM tasks
                             WHERE id = o.id AND scheduled_for = o.scheduled_for AND status::text = 'pending' AND pending_parents > 0
                             FOR UPDATE SKIP LOCKED) k
     ), rel AS (
       UPDATE tasks c
          SET pending_parents = 0, updated_at = $3::timestamptz, ready_at = ${readyAtOnReleaseSql('c', '0', '$3::timestamptz')}
         FROM lc
        WHERE c.id = lc.id AND c.scheduled_for = lc.scheduled_for AND c.status::text = 'pending' AND c.pending_parents > 0
       RETURNING c.run_id
     ), counts AS (
       SELECT run_id, count(*)::int AS n FROM rel GROUP BY run_id
     )
     SELECT run_id AS "runId", n,
            ${notify ? `(SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM rel)) x)::int` : '0'} AS _notified
       FROM counts`),
    ...(byParents ? [p.parentIds, p.weeks] : [p.runId, p.week]), now,
  );
  return new Map(rows.map((r) => [r.runId, r.n]));
}

/** The sum of releaseJoinTasks' counts. */
export function releasedCount(released: Map<string, number>): number {
  let n = 0;
  for (const v of released.values()) n += v;
  return n;
}
