import { DomainError } from '../../errors.ts';
import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * Locks the job row of a run or of a task (`FOR UPDATE`), before any run or
 * task row: the first step of the lock order (lib/engine/lock-order.ts) for
 * operations that will end a run (cancel, the job-first replay of a
 * completion, an operator's run retry). Deleted jobs are locked too: their
 * runs still end and book their counters.
 *
 * Lock: the job row only. Index: runs / tasks primary key, then jobs primary key.
 * @returns the job id, or null when the run / task does not exist
 */
export async function lockJobRow(tx: SqlClient, p: { runId?: string; taskId?: string }): Promise<string | null> {
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('lock-job-row', `SELECT j.id::text AS id FROM jobs j
      WHERE j.id = (SELECT coalesce((SELECT r.job_id FROM runs r WHERE r.id = $1::uuid),
                                    (SELECT t.job_id FROM tasks t WHERE t.id = $2::uuid))::uuid)
      FOR UPDATE OF j`),
    p.runId ?? null, p.taskId ?? null,
  );
  return rows[0]?.id ?? null;
}

/**
 * Takes the job row of a task by writing a new version of it (a no-op UPDATE), before any run
 * or task row: the first step of an operator action that may re-open a finished run (task
 * retry, clear, mark success; lock-order.ts). Holding the row serialises the re-open with the
 * job's triggers (lockJob), so their block strategy sees the re-opened run once it commits;
 * the new row version makes a one-statement trigger whose snapshot predates the commit leave
 * the job to the transaction path (insert-runs.ts `lockedIdle`), as a new run does.
 * A job in the recycle bin runs nothing, as a retry of its runs does not (trigger-run.ts), and
 * a purged one has nothing to re-open: both are refused here, with the row held, so a delete
 * or purge cannot slip in before the re-open commits.
 * Lock: the job row (FOR UPDATE strength). Index: tasks primary key, then jobs primary key.
 * @returns the job id, or null when the task does not exist
 * @throws DomainError('not_found') when the task's job is in the recycle bin or was purged
 */
export async function lockJobRowForReopen(tx: SqlClient, p: { taskId: string }): Promise<string | null> {
  const rows = await tx.$queryRawUnsafe<{ taskJob: string | null; id: string | null; deleted: boolean | null }[]>(
    preparedSql('lock-job-row-reopen', `WITH t AS (SELECT job_id FROM tasks WHERE id = $1::uuid),
      j AS (UPDATE jobs SET total_runs = jobs.total_runs WHERE jobs.id = (SELECT job_id FROM t)::uuid
            RETURNING jobs.id::text AS id, jobs.deleted_at IS NOT NULL AS deleted)
      SELECT (SELECT job_id FROM t) AS "taskJob", j.id, j.deleted FROM (SELECT 1) one LEFT JOIN j ON true`),
    p.taskId,
  );
  const row = rows[0];
  if (!row?.taskJob) return null;
  if (!row.id) throw new DomainError('not_found', `The job of task ${p.taskId} was purged: its tasks cannot run again`);
  if (row.deleted) throw new DomainError('not_found', `The job of task ${p.taskId} is in the recycle bin: restore it to run its tasks again`);
  return row.id;
}

/**
 * Locks the job rows of several runs in ascending job id (lock-order.ts step 1 for several
 * jobs): the job-first replay of a batch that ends runs of different jobs. Index: runs primary
 * key, jobs primary key.
 */
export async function lockJobsOfRuns(tx: SqlClient, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('lock-jobs-of-runs', `SELECT j.id FROM jobs j
      WHERE j.id IN (SELECT r.job_id::uuid FROM runs r WHERE r.id = ANY($1::uuid[]))
      ORDER BY j.id FOR UPDATE OF j`),
    runIds,
  );
}

/**
 * Locks run rows in ascending id (cover_early: every active run of a job, the
 * job row already held; lock-order.ts step 2). Index: runs primary key.
 */
export async function lockRuns(tx: SqlClient, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('lock-runs', `SELECT id FROM runs WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`),
    runIds,
  );
}

/**
 * Holds run rows FOR SHARE in ascending id, each found by its key (id, week): what a worker's
 * batches of DAG successes hold (complete-dag-tasks.ts), so that the release of their join tasks
 * after the commit (complete-task.ts releaseJoinsAfterBatch) keeps out re-opens, cancels and
 * failures, which lock the run FOR UPDATE (lock-order.ts). Index: runs primary key.
 * @param weeks each run's scheduled_for (the partition key), in the order of `runIds`
 */
export async function shareRuns(tx: SqlClient, runIds: string[], weeks: Date[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('share-runs', `SELECT r.id FROM runs r
      WHERE (r.id, r.scheduled_for) IN (SELECT * FROM unnest($1::uuid[], $2::timestamptz[]))
      ORDER BY r.id FOR SHARE OF r`),
    runIds, weeks,
  );
}

/**
 * Holds FOR SHARE, in ascending id, the runs of the given tasks (each task by its key: id, week):
 * what a hand-back of claimed, unstarted tasks holds (release-tasks.ts) so that its recount of
 * their parents, a later statement, sees any re-open of the run committed before (re-opens lock the
 * run FOR UPDATE: lock-order.ts). Index: tasks and runs primary keys.
 * @param weeks each task's scheduled_for (the partition key), in the order of `taskIds`
 */
export async function shareRunsOfTasks(tx: SqlClient, taskIds: string[], weeks: Date[]): Promise<void> {
  if (taskIds.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('share-runs-of-tasks', `SELECT r.id FROM runs r
      WHERE (r.id, r.scheduled_for) IN (SELECT t.run_id, t.scheduled_for FROM tasks t
                                          JOIN unnest($1::uuid[], $2::timestamptz[]) AS x(id, week) ON t.id = x.id AND t.scheduled_for = x.week)
      ORDER BY r.id FOR SHARE OF r`),
    taskIds, weeks,
  );
}

/**
 * Locks, without waiting, those of the run rows that nobody holds (`FOR UPDATE SKIP LOCKED`,
 * ascending id): for work that may be left to a later holder of the run (complete-task.ts
 * settleDagBatch). Index: runs primary key.
 * @returns the ids of the runs now locked
 */
export async function lockFreeRuns(tx: SqlClient, runIds: string[]): Promise<Set<string>> {
  if (runIds.length === 0) return new Set();
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('lock-free-runs', `SELECT id FROM runs WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE SKIP LOCKED`),
    runIds,
  );
  return new Set(rows.map((r) => r.id));
}
