import { preparedSql, type SqlClient } from '../../db.ts';
import { jobBookingSetSql, runEndSetSql } from './run-outcome.ts';
import { attemptDurationMsSql, latenessFromSql, statsEventsSql, statsUpsertFromEventsSql } from './stats-outcome.ts';
import { completionItemsParam, completionItemsSql, itemsWeekFloor, lockItemTasksSql, weekFloorSql, itemsRowLimit, successLogSql, successSetSql, type CompletionItem } from './completion-items.ts';

export interface OnlyTaskCompleted {
  id: string;
  runId: string;
  attempt: number;
  /** 'success' when the run was still open and ended here (it always is, barring manual edits) */
  runStatus: string | null;
}

/**
 * The common completion in ONE statement, for a batch of attempts at once: a
 * successful attempt of the only task of its run (a one-step job) — task running -> success (compare-and-set
 * on id, status, attempt, locked_by), its task_logs row, the run -> success
 * (finished_at, duration) and the job's counters — the rule shared with finalise-run.ts
 * (run-outcome.ts) — and the handler_stats_daily upsert
 * (no NOTIFY: see finalise-run.ts). It is exactly what finish-attempt + lock-run +
 * finalise-run (+ stats) do for such a task, without the interactive
 * transaction: one statement is atomic on its own, so it commits as one unit
 * in one round trip — for the whole batch: one commit (one WAL flush) for up
 * to `items.length` completions, which is what a worker's completion batcher
 * (worker/completion-batcher.ts) relies on. Each item is its own
 * compare-and-set: items that do not qualify are simply not returned.
 *
 * Batch rules: the job counters are added per job (two runs of one job in the
 * batch count twice; an UPDATE ... FROM joining a job row twice would update
 * it once), and the stats delta is summed per handler before the upsert (ON
 * CONFLICT cannot touch one row twice in a statement). Rows are locked in
 * the engine's lock order (lib/engine/lock-order.ts): the items' job rows,
 * then their run rows, then the task rows, each set in ascending id, then the
 * stats rows in handler order; so two batches, or a batch and a cancel, never
 * wait for each other in a cycle. The job rows are locked before the
 * eligibility test below, also for items that then do not qualify; they are
 * released when the statement ends.
 *
 * It applies only when nothing else could need a fresh snapshot or more work:
 * - the run has no other task (a run's task set is fixed when it is created,
 *   so the statement snapshot answers this exactly; with one task no other
 *   completion can race to end the run, which is what lock-run serialises);
 * - the job is not serial_execution and has no other pending run (otherwise
 *   finalise-run would report mayRelease and release-serial-run must run as a
 *   new statement after the job lock).
 * Otherwise (or on a lost race) it changes nothing and returns null; the
 * caller then takes the general path, whose compare-and-set decides.
 *
 * Why one statement: the handler's stats row (locked last) is
 * shared by the completions of the handler that day (per slot, STATS_SLOTS); in an interactive
 * transaction it stayed locked for the remaining client round trips and the
 * COMMIT, which serialised all completions (measured: 8 lanes spent most of
 * their time in Lock:transactionid). In a single autocommit statement it is
 * held only from the upsert to the end of the statement.
 *
 * The stats upsert is built from the shared counting rule (stats-outcome.ts): one
 * successful attempt per returned task, its duration the same expression as the log's
 * detail.durationMs; several items of one handler are summed into one row before the
 * upsert (ON CONFLICT cannot touch one row twice in a statement).
 *
 * Every row is reached by its full primary key: the items carry each task's run, job and week
 * (scheduled_for, the partition key) from its claim, so PostgreSQL reads one week's partition
 * of tasks and runs per item, never probing every week (docs/operations.md "History
 * partitions"). Index: tasks_pkey, runs_pkey, jobs_pkey, tasks_run_step_uniq for the sibling
 * probe, runs_active_idx, handler_stats_daily_pkey. A named prepared statement (lib/db.ts
 * preparedSql) on the worker's hot-path pool, whose planner settings keep it on those keys
 * whatever the statistics say (lib/sql-pool.ts).
 *
 * The run may still be `pending`: a one-step run is not marked running at its claim
 * (claim-tasks.ts), so this is often its only write; it takes the task's started_at.
 */
export async function completeOnlyTasksSql(
  db: SqlClient,
  p: { nodeId: string; message: string; items: CompletionItem[] },
  now: Date,
): Promise<OnlyTaskCompleted[]> {
  if (p.items.length === 0) return [];
  const batch = completionItemsParam(p.items);
  const floor = '$5::timestamptz'; // the batch's earliest week (itemsWeekFloor, the 5th parameter)
  return db.$queryRawUnsafe<OnlyTaskCompleted[]>(
    preparedSql('complete-only-tasks', `WITH i AS (
       SELECT * FROM ${completionItemsSql(1)} LIMIT ${itemsRowLimit(p.items.length)}
     ), lj AS (
       -- Lock order (lib/engine/lock-order.ts): jobs, then runs, then tasks, each in ascending id.
       -- Each step is an uncorrelated sub-select of the next one's WHERE, which PostgreSQL runs
       -- once, in full, before that step reads its first row.
       -- Only jobs that can qualify (not serial_execution): a serial job's completion goes the
       -- general way and must not wait here, e.g. behind a tick holding its row.
       SELECT j.id FROM jobs j WHERE j.id IN (SELECT job_id FROM i) AND j.block_strategy <> 'serial_execution'
        ORDER BY j.id FOR UPDATE OF j
     ), lr AS (
       SELECT r.id, r.trigger FROM runs r
        WHERE (r.id, r.scheduled_for) IN (SELECT run_id, scheduled_for FROM i WHERE job_id IN (SELECT id FROM lj)) AND ${weekFloorSql('r', floor)}
        ORDER BY r.id FOR UPDATE OF r
     ), lt AS (
       ${lockItemTasksSql(floor)}
     ), t AS (
       UPDATE tasks
          SET ${successSetSql('$3::timestamptz')}
         FROM i
        WHERE tasks.id = i.id AND tasks.scheduled_for = i.scheduled_for AND ${weekFloorSql('tasks', floor)}
          AND tasks.status::text = 'running' AND tasks.attempt = i.attempt AND tasks.locked_by = $2
          -- the keys the worker sent must be the task's own
          AND tasks.run_id = i.run_id AND tasks.job_id = i.job_id::text
          AND (SELECT count(*) FROM lt) >= 0
          AND i.job_id IN (SELECT id FROM lj) -- never touch a job row this statement did not lock first
          AND NOT EXISTS (SELECT 1 FROM tasks o WHERE o.run_id = i.run_id AND o.scheduled_for = i.scheduled_for AND ${weekFloorSql('o', floor)} AND o.id <> i.id)
          AND NOT EXISTS (SELECT 1 FROM runs o WHERE o.job_id = tasks.job_id AND o.status = 'pending' AND o.id <> tasks.run_id)
       RETURNING tasks.id, tasks.run_id, tasks.scheduled_for, tasks.job_id, tasks.handler, tasks.attempt, tasks.started_at,
                 tasks.ready_at, tasks.locked_by, i.error, i.exit_code,
                 ${attemptDurationMsSql('$3::timestamptz', 'tasks.started_at')} AS dur
     ), log AS (
       ${successLogSql('$3::timestamptz', '$4')}
       RETURNING 1
     ), run AS (
       UPDATE runs r
          SET ${runEndSetSql({ status: `'success'`, now: '$3::timestamptz', error: 'NULL', startedAt: 't.started_at' })}
         FROM t
        WHERE r.id = t.run_id AND r.scheduled_for = t.scheduled_for AND ${weekFloorSql('r', floor)}
          -- status::text: with the floor, (status, scheduled_for) would match runs_status_scheduled_for_id_idx
          -- and read every open run of the week instead of this one by its key
          AND r.status::text IN ('pending', 'running')
       RETURNING r.id, r.job_id, r.status
     ), job AS (
       UPDATE jobs j
          SET ${jobBookingSetSql({ status: `'success'`, runs: 'n.runs', error: 'NULL' })}
         FROM (SELECT job_id, count(*)::int AS runs FROM run GROUP BY job_id) n
        WHERE j.id = n.job_id::uuid
       RETURNING j.id
     ), stats AS (
       ${statsUpsertFromEventsSql(statsEventsSql({
         at: '$3::timestamptz', handler: 't.handler', outcome: `'success'`, dead: 'false',
         durationMs: 't.dur', attempt: 't.attempt', startedAt: 't.started_at', latenessFrom: latenessFromSql('t', 'lr'),
       }, 'FROM t JOIN lr ON lr.id = t.run_id'), '$3::timestamptz')}
       RETURNING 1
     )
     SELECT t.id, t.run_id AS "runId", t.attempt, run.status::text AS "runStatus",
            (SELECT count(*) FROM log)::int AS "_logged", (SELECT count(*) FROM job)::int AS "_job",
            (SELECT count(*) FROM stats)::int AS "_stats"
       FROM t LEFT JOIN run ON run.id = t.run_id`),
    batch, p.nodeId, now, p.message, itemsWeekFloor(p.items),
  );
}
