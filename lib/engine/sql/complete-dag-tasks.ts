import { preparedSql, type SqlClient } from '../../db.ts';
import { TASKS_CHANNEL } from '../notify.ts';
import { attemptDurationMsSql, latenessFromSql, readyAtOnReleaseSql, statsEventsSql, statsUpsertFromEventsSql, type StatsEventColumns } from './stats-outcome.ts';
import { claimLogSql, claimSetColumns, nodeNotDrainingSql, routingAllowsSql, type ClaimingNodeSql } from './claim-routing.ts';
import { claimedTaskColumns } from './columns.ts';
import { intoJoinSql } from './release-joins.ts';
import { completionItemsParam, itemsRowLimit, itemsWeekFloor, lockItemTasksSql, weekFloorSql, completionItemsSql, successLogSql, successSetSql, type CompletionItem } from './completion-items.ts';

export interface DagTaskCompleted {
  id: string;
  runId: string;
  attempt: number;
  handler: string;
  /** tasks.started_at of the attempt (its stats: duration, lateness) */
  startedAt: Date | null;
  /** the instant the attempt's lateness is measured from (stats-outcome.ts latenessFromSql) */
  latenessFrom: Date | null;
  /** pending on_failure children: they must be skipped by design (propagate-final.ts) */
  onFailureChildren: number;
  /** hard/soft edges of this task into join tasks, which this statement leaves to releaseJoinTasks (release-joins.ts) */
  joinChildren: number;
  /** tasks of this task's run that became ready in this statement (pending_parents reached 0), handed off or not */
  runReady: number;
  /** of those, the ones left for a claim (not handed off) */
  runReadyOpen: number;
  /** the steps of this run handed to the completing node by this statement (claimed for it), in ClaimedTask's JSON shape */
  handedOff: Record<string, unknown>[] | null;
  /** the statement also booked the batch's handler stats (the same on every row) */
  statsBooked: boolean;
}

/**
 * Successes of a batch of tasks of any runs (DAG steps above all) in ONE statement: each item is
 * finish-attempt.ts's compare-and-set (id, status running, attempt, locked_by) -> success, its
 * task_logs row, and the pending_parents decrement of the hard/soft children that have no other
 * parent. Join steps (several parents) are not written here: each batch ending one of their
 * parents would wait for the others' commit on the join's row; the caller releases them after
 * the commit (release-joins.ts, complete-task.ts releaseJoinsAfterBatch), told by `joinChildren`.
 * When a child became ready and was not handed off, other workers must be told (NOTIFY
 * tickflow_tasks, '' = ready now; this worker is told by the result, `runReadyOpen`): inside a
 * caller's transaction (`jobFirst`) by this statement; on the worker's path by the caller after
 * the commit (notify.ts notifyTasksReadyNow), so that this commit does not hold PostgreSQL's
 * notify lock through its WAL flush.
 *
 * Locks, in the engine's lock order (lib/engine/lock-order.ts): when `jobFirst` (inside a
 * caller's transaction, which may hold or take job rows) the items' job rows, then their run rows,
 * then the task rows, each set in ascending id; then the pending children, in ascending id.
 * The runs are locked FOR SHARE on the worker's path (`jobFirst` false: an autocommit statement):
 * batches completing steps of one run — on one worker or several — run side by side, and keep
 * out only what locks the run itself (a cancel, a retry, a failure, the settling of a run's end),
 * which waits for them and which they wait for. Two batches meet on no task row (each holds its
 * own running tasks, and a child with one parent has one releaser). Inside a
 * caller's transaction (`jobFirst`) the runs are locked FOR UPDATE, since the caller decides the
 * runs' end in that transaction with no commit between. The child decrement needs no snapshot:
 * an UPDATE re-reads the latest committed row it waited for, so a parent completing elsewhere
 * at the same time is counted once. Whether a run has ended is NOT decided here (this
 * statement's snapshot may predate another completion's commit): complete-task.ts
 * settleDagBatch probes after the commit. on_failure children are left to it too.
 *
 * Hand-off: a success whose item asks for it (`handoff`: its worker has a free slot) and whose
 * task has exactly one hard/soft child hands that child (never a join step: those are released
 * after the commit), when this statement makes it ready and
 * the node may run it (its handler, claim-routing.ts routingAllowsSql without consistent_hash,
 * no resource key, due now, the node not draining), straight to the completing node: the
 * child's release and its claim (running, locked_by, lease, its 'claimed' task_logs row) are
 * the same UPDATE, and the worker starts it on the result — a chain step costs one statement
 * instead of a completion and a claim. Each success hands off at most one child, so a worker
 * never takes more steps than it finished. Children made ready and not handed off are left to
 * the claim (NOTIFY).
 *
 * Stats: with `bookStats` the batch's handler stats are always booked here (the statement is
 * its own transaction: autocommit, so the hot stats rows are held only to its end). Without it
 * (inside a longer transaction) they ride along only when nothing follows but COMMIT, and the
 * caller books them last otherwise (`statsBooked`).
 *
 * Every row is reached by its full key: the items carry each task's run and week
 * (scheduled_for, the partition key) from the claim, and a task's children and dependency rows
 * share its run's week, so PostgreSQL reads one week's partitions per item. Index: tasks_pkey,
 * runs_pkey, task_dependencies_parent_idx (parent_task_id) for the children. On the worker's
 * hot-path pool its planner settings keep it on those keys (lib/sql-pool.ts).
 */
export async function completeDagTasksSql(
  tx: SqlClient,
  p: { nodeId: string; message: string; jobFirst: boolean; bookStats: boolean; items: CompletionItem[]; handoff?: HandoffNode },
  now: Date,
): Promise<DagTaskCompleted[]> {
  if (p.items.length === 0) return [];
  const batch = completionItemsParam(p.items);
  const node: ClaimingNodeSql = { nodeId: '$2::text', group: '$8', labels: '$9::jsonb', now: '$3::timestamptz', staleSeconds: '0' };
  const runLock = p.jobFirst ? 'FOR UPDATE' : 'FOR SHARE';
  const floor = '$11::timestamptz'; // the batch's earliest week (itemsWeekFloor, the 11th parameter)
  return tx.$queryRawUnsafe<DagTaskCompleted[]>(
    preparedSql(p.jobFirst ? 'complete-dag-tasks-in-tx' : 'complete-dag-tasks', `WITH i AS (
       -- LIMIT: the batch's size as the planner's row estimate (itemsRowLimit), so it reaches each
       -- task by its key rather than walking a young week whole
       SELECT DISTINCT ON (id, attempt) * FROM ${completionItemsSql(1)} LIMIT ${itemsRowLimit(p.items.length)}
     ), lj AS (
       -- Lock order (lib/engine/lock-order.ts): on a replay the jobs first, then the runs, then the
       -- tasks, each set in ascending id. Each step is an uncorrelated sub-select of the next one's
       -- WHERE, which PostgreSQL runs once, in full, before that step reads its first row.
       SELECT j.id FROM jobs j
        WHERE $5::boolean AND j.id IN (SELECT job_id FROM i)
        ORDER BY j.id FOR UPDATE OF j
     ), lr AS (
       SELECT r.id, r.trigger, r.job_key FROM runs r
        WHERE (r.id, r.scheduled_for) IN (SELECT run_id, scheduled_for FROM i) AND ${weekFloorSql('r', floor)} AND (SELECT count(*) FROM lj) >= 0
        ORDER BY r.id ${runLock} OF r
     ), lt AS (
       ${lockItemTasksSql(floor)}
     ), t AS (
       UPDATE tasks
          SET ${successSetSql('$3::timestamptz')}
         FROM i
        -- status::text keeps the planner on tasks_pkey (finish-attempt.ts)
        WHERE tasks.id = i.id AND tasks.scheduled_for = i.scheduled_for AND tasks.run_id = i.run_id
          AND tasks.status::text = 'running' AND tasks.attempt = i.attempt AND tasks.locked_by = $2 AND ${weekFloorSql('tasks', floor)}
          AND (SELECT count(*) FROM lt) >= 0
       RETURNING tasks.id, tasks.run_id, tasks.scheduled_for, tasks.handler, tasks.attempt, tasks.started_at, tasks.ready_at,
                 tasks.locked_by, i.error, i.exit_code, ${attemptDurationMsSql('$3::timestamptz', 'tasks.started_at')} AS dur
     ), log AS (
       ${successLogSql('$3::timestamptz', '$4')}
       RETURNING 1
     ), deps AS MATERIALIZED (
       -- the successes' hard/soft edges, each marked when it leads into a join (release-joins.ts),
       -- read once for the hand-off's child count, the release below and the count of joins left
       -- to the caller
       SELECT d.parent_task_id, d.task_id, d.scheduled_for, ${intoJoinSql('d')} AS into_join
         FROM t
         JOIN task_dependencies d ON d.parent_task_id = t.id AND d.scheduled_for = t.scheduled_for AND d.dep_type IN ('hard', 'soft')
     ), handing AS MATERIALIZED (
       -- successes whose worker takes a step (i.handoff) and whose task has one hard/soft child
       -- (MATERIALIZED: counted once per success, not once per dependency row that joins it)
       SELECT t.id FROM t JOIN i ON i.id = t.id
        WHERE i.handoff AND ${nodeNotDrainingSql('$2::text')}
          AND (SELECT count(*) FROM deps o WHERE o.parent_task_id = t.id) = 1
     ), edges AS (
       SELECT d.task_id, d.scheduled_for, count(*)::int AS n,
              -- the child may be handed off: a handing parent, and this node may run it now
              bool_or(h.id IS NOT NULL) AND bool_and(k.handler = ANY($7::text[]) AND k.resource_key IS NULL
                                                     AND k.schedule_at <= $3::timestamptz AND ${routingAllowsSql('k', node, 'never')}) AS handoff
         -- joins (release-joins.ts) are released after the commit, not here
         FROM deps d
         -- each child by its key from its dependency row, never by its week: OFFSET 0 keeps this
         -- lookup after d (see childByKeySql)
         CROSS JOIN LATERAL ${childByKeySql('k', 'd', floor)}
         LEFT JOIN handing h ON h.id = d.parent_task_id
        WHERE NOT d.into_join
        GROUP BY d.task_id, d.scheduled_for
     ), joins AS (
       -- the successes' edges into join tasks: the caller releases those after the commit
       SELECT parent_task_id AS id, count(*)::int AS n FROM deps WHERE into_join GROUP BY parent_task_id
     ), lc AS (
       -- The children, locked in ascending id before any is written (a child of one parent has one
       -- releaser; the order keeps this statement's locks in lock-order.ts's order all the same).
       -- The nested loop reads the children in the order of the sorted edges, each by its key.
       SELECT k.id FROM (SELECT task_id, scheduled_for FROM edges ORDER BY task_id) e
        CROSS JOIN LATERAL (SELECT id FROM tasks WHERE id = e.task_id AND scheduled_for = e.scheduled_for AND ${weekFloorSql('tasks', floor)} FOR UPDATE) k
     ), dec AS (
       -- The release, and for a handed-off child its claim, in one write of the child's row: the
       -- condition reads the row as this UPDATE found it (after waiting for a concurrent parent's
       -- release), so "becomes ready now" is exact.
       UPDATE tasks c
          SET pending_parents = c.pending_parents - e.n, updated_at = $3::timestamptz,
              ready_at = ${readyAtOnReleaseSql('c', 'c.pending_parents - e.n', '$3::timestamptz')},
              ${claimSetColumns('c', { nodeId: '$2', start: '$3::timestamptz', leaseSeconds: '$10::double precision', held: 'false' })
                .map(([column, value]) => `${column} = CASE WHEN e.handoff AND c.pending_parents = e.n THEN ${value} ELSE c.${column} END`)
                .join(',\n              ')}
         FROM edges e
        -- status::text: no status index matches, so each child is reached by tasks_pkey from e
        WHERE c.id = e.task_id AND c.scheduled_for = e.scheduled_for AND ${weekFloorSql('c', floor)} AND c.status::text = 'pending'
          AND (SELECT count(*) FROM lc) >= 0
       RETURNING c.*, c.status = 'running' AS claimed
     ), hlog AS (
       ${claimLogSql('dec', '$2', '$3::timestamptz', 'claimed')}
       RETURNING 1
     ), ready AS (
       SELECT run_id, count(*)::int AS n, count(*) FILTER (WHERE NOT claimed)::int AS open FROM dec WHERE pending_parents = 0 GROUP BY run_id
     ), handed AS (
       SELECT x."runId" AS run_id, jsonb_agg(to_jsonb(x)) AS tasks
         FROM (SELECT ${claimedTaskColumns('c', 'lr', 'false')} FROM dec c JOIN lr ON lr.id = c.run_id WHERE c.claimed) x
        GROUP BY x."runId"
     ), onf AS (
       SELECT d.parent_task_id AS id, count(*)::int AS n
         FROM t
         JOIN task_dependencies d ON d.parent_task_id = t.id AND d.scheduled_for = t.scheduled_for AND d.dep_type = 'on_failure'
         CROSS JOIN LATERAL ${childByKeySql('c', 'd', floor)}
        WHERE c.status::text = 'pending'
        GROUP BY d.parent_task_id
     ), stats AS (
       -- When every item's run got a ready task and no on_failure child waits, nothing follows this
       -- statement but COMMIT: the handler stats ride along (hot rows, locked last: lock-order.ts).
       -- Otherwise the caller books them after its other statements (statsBooked = false).
       ${successStatsSql(
         { handler: 't.handler', durationMs: 't.dur', attempt: 't.attempt', startedAt: 't.started_at', latenessFrom: latenessFromSql('t', 'lr') },
         'FROM t JOIN lr ON lr.id = t.run_id WHERE $6::boolean OR (NOT EXISTS (SELECT 1 FROM t t2 WHERE t2.run_id NOT IN (SELECT run_id FROM ready)) AND NOT EXISTS (SELECT 1 FROM onf))',
         '$3::timestamptz',
       )}
       RETURNING 1
     )
     SELECT t.id, t.run_id AS "runId", t.attempt, t.handler, (SELECT count(*) FROM stats) > 0 AS "statsBooked",
            t.started_at AS "startedAt", ${latenessFromSql('t', 'lr')} AS "latenessFrom",
            coalesce(onf.n, 0) AS "onFailureChildren", coalesce(joins.n, 0) AS "joinChildren", coalesce(ready.n, 0) AS "runReady", coalesce(ready.open, 0) AS "runReadyOpen",
            handed.tasks AS "handedOff",
            (SELECT count(*) FROM log)::int AS "_logged", (SELECT count(*) FROM hlog)::int AS "_handed",
            ${p.jobFirst ? `(SELECT count(*) FROM (SELECT pg_notify('${TASKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM ready WHERE open > 0)) n)::int` : '0'} AS "_notified"
       FROM t JOIN lr ON lr.id = t.run_id LEFT JOIN onf ON onf.id = t.id LEFT JOIN joins ON joins.id = t.id LEFT JOIN ready ON ready.run_id = t.run_id
       LEFT JOIN handed ON handed.run_id = t.run_id`),
    batch, p.nodeId, now, p.message, p.jobFirst, p.bookStats,
    p.handoff?.handlers ?? [], p.handoff?.group ?? '', JSON.stringify(p.handoff?.labels ?? {}), p.handoff?.leaseSeconds ?? 0,
    itemsWeekFloor(p.items),
  );
}

/**
 * A child task row reached by its key from its dependency row `dep` (task_id, scheduled_for), as
 * a LATERAL sub-select named `alias`. Every task of a run shares the run's week (scheduled_for),
 * so a join that also equates the child's week with its parent's lets the planner reach the
 * children by week alone — a walk of the whole partition's primary key per completed parent (a
 * 10,000-step DAG: ~1 s per statement). OFFSET 0 keeps the sub-select from being merged into
 * the join, so the child can only be read after its dependency row, by (id, scheduled_for):
 * tasks_pkey, one partition. `floor`: the batch's earliest week (completion-items.ts weekFloorSql).
 */
function childByKeySql(alias: string, dep: string, floor: string): string {
  return `(SELECT id, status, handler, job_id, routing, resource_key, schedule_at FROM tasks
            WHERE id = ${dep}.task_id AND scheduled_for = ${dep}.scheduled_for AND ${weekFloorSql('tasks', floor)} OFFSET 0) ${alias}`;
}

/** The node a DAG completion hands steps to (its claim configuration, as ClaimInput has it). */
export interface HandoffNode {
  handlers: string[];
  group: string;
  labels: Record<string, string>;
  /** lease of a handed-off step: now + leaseSeconds (s) */
  leaseSeconds: number;
}

/** A successful attempt of the batch, as the handler stats count it (the rule: stats-outcome.ts). */
export interface StatsRow {
  handler: string;
  attempt: number;
  startedAt: Date | null;
  /** stats-outcome.ts latenessFromSql of the task */
  latenessFrom: Date | null;
}

/**
 * The handler_stats_daily upsert of successful attempts that ended at `now`, built from the one
 * counting rule (stats-outcome.ts): rows in (day, handler) order (lock-order.ts: stats last).
 * @param c SQL over `from` of each attempt's handler, duration, attempt, started_at, lateness_from
 * @param from the FROM/WHERE clause (a WHERE that fails writes nothing)
 * @param now SQL of the end instant (timestamptz)
 */
function successStatsSql(c: Pick<StatsEventColumns, 'handler' | 'durationMs' | 'attempt' | 'startedAt' | 'latenessFrom'>, from: string, now: string): string {
  return statsUpsertFromEventsSql(statsEventsSql({ ...c, at: now, outcome: `'success'`, dead: 'false' }, from), now);
}

/** The successes as a jsonb parameter and the SQL reading it back as `x` (from the parameter $`param`). */
const statsRowsParam = (rows: StatsRow[]) => JSON.stringify(rows.map((r) => ({ handler: r.handler, attempt: r.attempt, started_at: r.startedAt, lateness_from: r.latenessFrom })));
const statsRowsFrom = (param: number) => `FROM jsonb_to_recordset($${param}::jsonb) AS x(handler text, attempt int, started_at timestamptz, lateness_from timestamptz)`;
const statsRowsColumns = (now: string) => ({
  handler: 'x.handler', attempt: 'x.attempt', startedAt: 'x.started_at', latenessFrom: 'x.lateness_from',
  durationMs: attemptDurationMsSql(now, 'x.started_at'),
});

/** Adds a batch of successful attempts to handler_stats_daily (successStatsSql), standalone: the transaction's last statement. */
export async function recordSuccessStats(tx: SqlClient, rows: StatsRow[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await tx.$executeRawUnsafe(preparedSql('record-success-stats', successStatsSql(statsRowsColumns('$2::timestamptz'), statsRowsFrom(1), '$2::timestamptz')),
    statsRowsParam(rows), now);
}

/**
 * After completeDagTasksSql, in a new statement (a fresh READ COMMITTED snapshot: after the batch's
 * commit on a worker, unlocked — complete-task.ts settleDagBatch; or inside the transaction that
 * holds the runs FOR UPDATE): which of `runIds` may have ended or be stuck — no open task, or open tasks of
 * which none is running, ready or between attempts (finalise-run.ts's probe, per run). Those go
 * through settle.ts finishRunIfDone; when there are none — the common case, a DAG that goes on —
 * the batch's handler stats ride on this statement as its last step, so the transaction needs no
 * further statement before COMMIT (`statsDone`).
 * Index: tasks_run_open_idx per run (pending_parents < 1: finalise-run.ts).
 */
export async function probeRunsAfterCompletion(
  tx: SqlClient,
  runIds: string[],
  stats: StatsRow[],
  now: Date,
): Promise<{ toFinish: string[]; statsDone: boolean }> {
  const rows = await tx.$queryRawUnsafe<{ id: string | null; live: boolean | null; _stats: number }[]>(
    preparedSql('probe-runs-after-completion', `WITH p AS (
       SELECT r.id,
              EXISTS (SELECT 1 FROM tasks WHERE run_id = r.id AND status IN ('running', 'failed', 'timeout'))
                OR EXISTS (SELECT 1 FROM tasks WHERE run_id = r.id AND status = 'pending' AND pending_parents < 1) AS live
         FROM unnest($1::uuid[]) AS r(id)
     ), stats AS (${successStatsSql(statsRowsColumns('$3::timestamptz'), `${statsRowsFrom(2)} WHERE NOT EXISTS (SELECT 1 FROM p WHERE NOT p.live)`, '$3::timestamptz')} RETURNING 1)
     SELECT p.id, p.live, (SELECT count(*) FROM stats)::int AS _stats FROM p
     UNION ALL SELECT NULL, NULL, (SELECT count(*) FROM stats)::int WHERE NOT EXISTS (SELECT 1 FROM p)`),
    runIds, statsRowsParam(stats), now,
  );
  const toFinish = rows.filter((r) => r.id !== null && !r.live).map((r) => r.id!);
  return { toFinish, statsDone: stats.length === 0 || toFinish.length === 0 };
}
