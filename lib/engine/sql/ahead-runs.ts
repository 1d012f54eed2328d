import { preparedSql, type SqlClient } from '../../db.ts';

/**
 * SQL true for a task `t` that has not started its first attempt: pending on it (never claimed, or
 * handed back unstarted), or claimed and running but not started in the sense `claimedButNotStarted`
 * (SQL over `t`) gives. The callers differ only in that sense, each for its own reason:
 * - a run created ahead whose slot is still to come (aheadRunSql): claimed ahead, its start still
 *   in the future (`started_at > now`: docs/on-time.md "Claiming ahead");
 * - a run a deleted or edited job must not start (selectQueuedRuns): claimed and held, its start
 *   not recorded (`held`: docs/on-time.md "Prefetch");
 * - a run created ahead of a missed slot (NEVER_STARTED_SQL): held by a worker whose lease expired.
 */
function firstAttemptNotStartedSql(t: string, claimedButNotStarted: string): string {
  return `(${t}.attempt = 1 AND (${t}.status = 'pending' OR (${t}.status = 'running' AND ${claimedButNotStarted})))`;
}

/**
 * The one definition of "created ahead of a slot still to come", over a runs row `r` (its id,
 * scheduled_for and trigger) at the instant `now` (SQL, timestamptz): a schedule run whose tasks
 * are all on their first attempt and not started — pending, or claimed ahead and held by a
 * worker until a start still in the future (running with started_at > now: docs/on-time.md
 * "Claiming ahead") — and whose earliest schedule_at is still to come. A LATERAL join yielding
 * `first` (that earliest schedule_at) plus the condition to put in the WHERE clause.
 */
function aheadRunSql(r: string, now: string): { join: string; where: string } {
  return {
    join: `CROSS JOIN LATERAL (SELECT min(t.schedule_at) AS first,
                                  bool_and(${firstAttemptNotStartedSql('t', `t.started_at > ${now}`)}) AS untouched
                             FROM tasks t WHERE t.run_id = ${r}.id AND t.scheduled_for = ${r}.scheduled_for) x`,
    where: `${r}.trigger = 'schedule' AND x.untouched AND x.first > ${now}`,
  };
}
const AHEAD = aheadRunSql('r', '$2::timestamptz');
const NEWEST_AHEAD = aheadRunSql('n', '$2::timestamptz');

/**
 * The job's open runs created ahead of a slot that is still in the future (aheadRunSql). Locks those run rows FOR UPDATE
 * (a claim of their tasks is waited for by the cancel, which then sees and cancels it).
 * Index: runs_active_idx (job_id, created_at) WHERE status IN (pending, running); then
 * tasks_run_step_uniq (run_id) in the run's week.
 */
export async function selectAheadRuns(tx: SqlClient, p: { jobId: string }, now: Date): Promise<{ id: string; scheduleAt: Date }[]> {
  return tx.$queryRawUnsafe<{ id: string; scheduleAt: Date }[]>(
    preparedSql('select-ahead-runs', `SELECT r.id, x.first AS "scheduleAt"
       FROM runs r
       ${AHEAD.join}
      WHERE r.job_id = $1 AND r.status IN ('pending', 'running') AND ${AHEAD.where}
      ORDER BY r.created_at
      FOR UPDATE OF r`),
    p.jobId, now,
  );
}

/**
 * For an action over several jobs (a bulk pause or delete, lib/jobs/bulk-jobs.ts): takes, before
 * any job is worked on, the row locks each job's own pause would take, in the engine's lock order
 * over all of them at once (lib/engine/lock-order.ts): the jobs in ascending id, then their runs
 * created ahead of a slot still to come (aheadRunSql) in ascending id, then those runs' open tasks
 * in ascending id. Taken job by job instead, a task of a later job would be locked after a task
 * of an earlier one with a higher id, against a worker's lease renewal, which locks its running
 * tasks in ascending id across jobs: a deadlock. Three statements, each locking in its ORDER BY.
 * @param jobIds the jobs (uuid strings, any order)
 * @param now the clock (UTC): which slots are still to come; each job's pause decides again
 *   (recheckAheadRuns), so a run locked here and left alone there only stays locked
 */
export async function lockAheadRunsOfJobs(tx: SqlClient, jobIds: string[], now: Date): Promise<void> {
  if (jobIds.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('lock-jobs-ascending', `SELECT id FROM jobs WHERE id = ANY ($1::uuid[]) ORDER BY id FOR UPDATE`),
    jobIds,
  );
  const runs = await tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('lock-ahead-runs-of-jobs', `SELECT r.id::text AS id
       FROM runs r
       ${AHEAD.join}
      WHERE r.job_id = ANY ($1::text[]) AND r.status IN ('pending', 'running') AND ${AHEAD.where}
      ORDER BY r.id
      FOR UPDATE OF r`),
    jobIds.map((id) => id.toLowerCase()), now, // runs.job_id holds the job id as text, lower case
  );
  if (runs.length === 0) return;
  await tx.$queryRawUnsafe(
    preparedSql('lock-ahead-run-tasks', `SELECT id FROM tasks
      WHERE run_id = ANY ($1::uuid[]) AND status IN ('pending', 'running')
      ORDER BY id
      FOR UPDATE`),
    runs.map((r) => r.id),
  );
}

const RECHECK = aheadRunSql('r', 'c.at');

/**
 * Of the runs `ids`, locked by this transaction (selectAheadRuns, selectNewestAheadRun), those
 * still created ahead of a slot to come at `at` (and the latest creation instant among them), and `at` itself: `now` moved on by the time this
 * transaction has taken so far (`clock_timestamp() - transaction_timestamp()`, lock waits and a
 * bulk action's earlier jobs included), so that an injected clock keeps its frame and a slot that
 * came while the action waited is no longer "to come" (docs/on-time.md: a run whose slot has come
 * is never touched). A fresh statement: it sees the runs' tasks as they are now, where the
 * locking SELECT re-checked only the run rows it waited for.
 */
export async function recheckAheadRuns(tx: SqlClient, ids: string[], now: Date): Promise<{ at: Date; ids: string[]; latestCreatedAt: Date | null }> {
  const [row] = await tx.$queryRawUnsafe<{ at: Date; ids: string[]; latestCreatedAt: Date | null }[]>(
    preparedSql('recheck-ahead-runs', `WITH c AS MATERIALIZED (SELECT $2::timestamptz + (clock_timestamp() - transaction_timestamp()) AS at),
          still AS (SELECT r.id, r.created_at FROM c, runs r ${RECHECK.join}
                     WHERE r.id = ANY ($1::uuid[]) AND r.status IN ('pending', 'running') AND ${RECHECK.where})
     SELECT c.at, array(SELECT id::text FROM still) AS ids, (SELECT max(created_at) FROM still) AS "latestCreatedAt" FROM c`),
    ids, now,
  );
  return { at: row!.at, ids: row!.ids, latestCreatedAt: row!.latestCreatedAt };
}

/**
 * The job's newest active run when it was created ahead of a slot still to come (aheadRunSql),
 * else nothing. Only the newest active run can be one: the tick creates a
 * run ahead only for a job without an active run, and every other run that becomes active first
 * withdraws it (cancel-ahead-runs.ts withdrawAheadRun). Reading one end of runs_active_idx keeps
 * the cost of a trigger independent of a long serial_execution queue.
 * Locks the run row FOR UPDATE only when it is one created ahead (lock order: the caller holds
 * the job row; a run that is not one is left alone). Call with the job row held.
 */
export async function selectNewestAheadRun(tx: SqlClient, p: { jobId: string }, now: Date): Promise<{ id: string; scheduleAt: Date }[]> {
  const found = await tx.$queryRawUnsafe<{ id: string; scheduledFor: Date; scheduleAt: Date }[]>(
    preparedSql('select-newest-ahead-run', `SELECT n.id, n.scheduled_for AS "scheduledFor", x.first AS "scheduleAt"
       FROM (SELECT r.id, r.scheduled_for, r.trigger FROM runs r
              WHERE r.job_id = $1 AND r.status IN ('pending', 'running')
              ORDER BY r.created_at DESC, r.scheduled_for DESC, r.id DESC LIMIT 1) n
       ${NEWEST_AHEAD.join}
      WHERE ${NEWEST_AHEAD.where}`),
    p.jobId, now,
  );
  const run = found[0];
  if (!run) return [];
  // A claim of its tasks in flight is waited for; a run no longer open is not withdrawn.
  return (await lockOpenRun(tx, run)) ? [{ id: run.id, scheduleAt: run.scheduleAt }] : [];
}

/**
 * Locks a run row (FOR UPDATE, by its key) while it is still open (pending or running), waiting for
 * a claim of its tasks in flight. @returns false when the run has ended meanwhile (left alone)
 */
async function lockOpenRun(tx: SqlClient, run: { id: string; scheduledFor: Date }): Promise<boolean> {
  const locked = await tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('lock-open-ahead-run', `SELECT id FROM runs WHERE id = $1::uuid AND scheduled_for = $2::timestamptz
        AND status IN ('pending', 'running') FOR UPDATE`),
    run.id, run.scheduledFor,
  );
  return locked.length > 0;
}

/**
 * Moves back to the slot the next_run_at of every job that has a run created ahead of a slot missed
 * by more than `graceMs` (never started: NEVER_STARTED_SQL) while its next_run_at has already moved
 * past that slot — a job that is not due when the stack comes back (an hourly job down from 13:59:58
 * to 14:30), or whose schedule ended with that slot (a `once` job, an `endAt`: paused by the system
 * when the tick fired it ahead, made active again as rewindNextRunAt `reviveEnded` does). The tick
 * then finds the job due and withdraws the run and applies the misfire policy to its slot
 * (cancel-ahead-runs.ts withdrawMissedAheadRun), as for a due job. The jobs are locked in
 * ascending id, and one another transaction holds is waited for and checked again as it is then
 * (another worker's catch-up may have moved it back already): skipping it would let this worker's
 * claims, which wait only for its own catch-up, start the run late. One statement; the
 * jobs_notify_update trigger wakes the tickers. A scan of the open runs (runs_active_idx): for a ticker's first pass, not every pass.
 * @returns the jobs moved back
 */
export async function rewindMissedAheadJobs(tx: SqlClient, p: { graceMs: number }, now: Date): Promise<string[]> {
  const rows = await tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('rewind-missed-ahead-jobs', `WITH missed AS (
       ${missedAheadJobsSql('$1::timestamptz', '$2::double precision')}
     ), locked AS (
       SELECT j.id, m.slot FROM jobs j JOIN missed m ON j.id = m.job_id::uuid
        WHERE (j.next_run_at IS NULL OR j.next_run_at > m.slot) AND ${tickDecidesJobSql('j')}
        ORDER BY j.id FOR UPDATE OF j
     )
     UPDATE jobs SET next_run_at = locked.slot, status = 'active'::job_status
       FROM locked WHERE jobs.id = locked.id
     RETURNING jobs.id::text AS id`),
    now, p.graceMs,
  );
  return rows.map((r) => r.id);
}

/**
 * SQL of a SELECT giving `job_id` and `slot` (the earliest due instant) of every job with an open
 * schedule run created ahead of a slot (its first task's schedule_at after the run's created_at)
 * whose tasks never started (NEVER_STARTED_SQL at `now`) while that slot is due before
 * `now - graceMs`: a slot missed while no worker was alive. A scan of the open runs
 * (runs_active_idx): for a first pass after a start or an outage, not every pass.
 * @param now SQL of the clock (timestamptz); @param graceMs SQL of the grace in ms
 */
function missedAheadJobsSql(now: string, graceMs: string): string {
  return `SELECT r.job_id, min(x.first) AS slot
         FROM runs r
         CROSS JOIN LATERAL (SELECT min(t.schedule_at) AS first, bool_and(${NEVER_STARTED_SQL('t', now)}) AS untouched
                               FROM tasks t WHERE t.run_id = r.id AND t.scheduled_for = r.scheduled_for) x
        WHERE r.status IN ('pending', 'running') AND r.trigger = 'schedule' AND x.untouched AND x.first > r.created_at
          AND x.first < ${now} - ${graceMs} * interval '1 millisecond'
        GROUP BY r.job_id`;
}

/**
 * SQL true for a job `j` whose missed slot the tick decides once it is due: live and active, or
 * paused by the system because its schedule ended with a slot fired ahead (made active again by
 * rewindNextRunAt `reviveEnded`). A job an operator paused is left alone.
 */
export function tickDecidesJobSql(j: string): string {
  return `(${j}.deleted_at IS NULL
          AND (${j}.status = 'active' OR (${j}.status = 'paused' AND ${j}.updated_by = 'system' AND ${j}.next_run_at IS NULL)))`;
}

/**
 * The jobs with a run created ahead of a missed slot (missedAheadJobsSql) whose slot the tick
 * decides (tickDecidesJobSql), with their misfire policy, in ascending id: what a worker that claims but does not tick withdraws before its first
 * claim (cancel-ahead-runs.ts withdrawMissedAheadRuns). Read-only.
 */
export async function selectJobsWithMissedAheadRuns(tx: SqlClient, p: { graceMs: number }, now: Date): Promise<{ id: string; policy: string }[]> {
  return tx.$queryRawUnsafe<{ id: string; policy: string }[]>(
    preparedSql('jobs-with-missed-ahead-runs', `WITH missed AS (
       ${missedAheadJobsSql('$1::timestamptz', '$2::double precision')}
     )
     SELECT j.id::text AS id, j.misfire_policy::text AS policy FROM jobs j JOIN missed m ON j.id = m.job_id::uuid
      WHERE ${tickDecidesJobSql('j')} ORDER BY j.id`),
    now, p.graceMs,
  );
}

/**
 * The job's open runs none of whose tasks has started: every task on its first attempt, pending
 * (queued: behind a serial_execution run, waiting for a worker or a resource key, created ahead) or
 * claimed and still held, its start not recorded. What a deleted job must not start any more
 * (cancel-ahead-runs.ts cancelQueuedRuns). Locks those run rows FOR UPDATE in ascending id (lock
 * order: the caller holds the job row). Index: runs_active_idx (job_id); tasks_run_step_uniq (run_id).
 */
export async function selectQueuedRuns(tx: SqlClient, p: { jobId: string }): Promise<{ id: string }[]> {
  return tx.$queryRawUnsafe<{ id: string }[]>(
    preparedSql('select-queued-runs', `SELECT r.id FROM runs r
       CROSS JOIN LATERAL (SELECT bool_and(${firstAttemptNotStartedSql('t', 't.held')}) AS untouched
                             FROM tasks t WHERE t.run_id = r.id AND t.scheduled_for = r.scheduled_for) x
      WHERE r.job_id = $1 AND r.status IN ('pending', 'running') AND x.untouched
      ORDER BY r.id
      FOR UPDATE OF r`),
    p.jobId,
  );
}

/**
 * Moves an active, live job's next_run_at back to `to` when that is earlier (LEAST), so the
 * tick fires a cancelled look-ahead slot again; a paused or deleted job is left alone (resume
 * recomputes next_run_at). With `p.reviveEnded`, a job whose schedule ended with that slot
 * (the tick fired its last slot ahead and paused it: status paused by 'system', no
 * next_run_at; a `once` job, an `endAt`) is made active again with next_run_at = `to`, as it
 * was before that slot was fired ahead; at the slot the tick fires it and pauses it again.
 * Primary-key UPDATE on the job row the caller holds. The jobs_notify_update trigger wakes
 * the tickers. Returns next_run_at afterwards (null when unchanged).
 */
export async function rewindNextRunAt(tx: SqlClient, p: { jobId: string; to: Date; reviveEnded?: boolean }): Promise<Date | null> {
  const rows = await tx.$queryRawUnsafe<{ nextRunAt: Date | null }[]>(
    preparedSql('rewind-next-run-at', `UPDATE jobs SET next_run_at = LEAST(coalesce(next_run_at, $2::timestamptz), $2::timestamptz),
             status = 'active'::job_status
      WHERE id = $1::uuid AND deleted_at IS NULL
        AND (status = 'active'
             OR ($3::boolean AND status = 'paused' AND updated_by = 'system' AND next_run_at IS NULL))
      RETURNING next_run_at AS "nextRunAt"`),
    p.jobId, p.to, p.reviveEnded ?? false,
  );
  return rows[0]?.nextRunAt ?? null;
}

/**
 * How long before `now` the slot (runs.scheduled_for) of a run created ahead of a slot still to come can lie: the
 * slot is due at scheduled_for + the job's stagger offset, which is less than its stagger_seconds, so never more
 * than the largest stagger of any job (a scan of the jobs table, one row per job definition). A bound on the
 * partition key: run-time pruning keeps a scan for such runs to the newest weekly partitions.
 */
const MAX_STAGGER_SQL = `((SELECT coalesce(max(stagger_seconds), 0) FROM jobs) * interval '1 second' + interval '1 millisecond')`;

const SLOT_OF_NEWEST = aheadRunSql('n', '$2::timestamptz');
const SLOT_OF_ANY = aheadRunSql('r', '$1::timestamptz');

/**
 * For a page of jobs (console lists, the job page, GET /jobs): the due instant of each job's run
 * created ahead of a slot still to come (aheadRunSql at `now`: its earliest task schedule_at), for
 * the jobs that have one; the others are left out. Read-only, no locks. One statement for the
 * whole page: per job, one end of runs_active_idx (job_id, created_at) in the partitions a slot still to come
 * can lie in (MAX_STAGGER_SQL; only the newest active run can be one created ahead, selectNewestAheadRun, and it is
 * also the newest in those partitions), then tasks_run_step_uniq (run_id) for that run.
 * lib/jobs/job-view.ts nextFireOf turns it into the job's next fire (docs/on-time.md "Next fire"); the jobs list,
 * the job page and the overview read it (one statement per page, never one per job: bench/history.ts).
 * @param jobIds job ids (uuid strings, any case)
 * @returns job id (lower case, as runs.job_id holds it) -> due instant of the slot
 */
export async function selectAheadSlots(db: SqlClient, jobIds: string[], now: Date): Promise<Map<string, Date>> {
  if (jobIds.length === 0) return new Map();
  const rows = await db.$queryRawUnsafe<{ jobId: string; slotAt: Date }[]>(
    preparedSql('select-ahead-slots', `SELECT j.id AS "jobId", x.first AS "slotAt"
       FROM unnest($1::text[]) AS j(id)
       CROSS JOIN LATERAL (SELECT r.id, r.scheduled_for, r.trigger FROM runs r
                            WHERE r.job_id = j.id AND r.status IN ('pending', 'running')
                              AND r.scheduled_for > $2::timestamptz - ${MAX_STAGGER_SQL}
                            ORDER BY r.created_at DESC, r.scheduled_for DESC, r.id DESC LIMIT 1) n
       ${SLOT_OF_NEWEST.join}
      WHERE ${SLOT_OF_NEWEST.where}`),
    [...new Set(jobIds.map((id) => id.toLowerCase()))], now,
  );
  return new Map(rows.map((r) => [r.jobId, r.slotAt]));
}

/**
 * Every job that has a run created ahead of a slot still to come (aheadRunSql at `now`), with
 * that slot's due instant: the overview's Next 24 hours lists such a job even when its
 * next_run_at (already moved past the slot) lies beyond the horizon, or the job was paused by
 * the system after firing its last slot ahead (a `once` job); the jobs list sorted by next fire merges these
 * jobs into its page by their slot. Read-only, no locks.
 * The run's scheduled_for is later than `now` minus the largest stagger of any job (MAX_STAGGER_SQL): that
 * bound keeps the scan to the newest weekly partitions (run-time pruning on scheduled_for) and to their open runs
 * (runs_active_idx, or runs_status_time_idx (status, scheduled_for) ranges); then tasks_run_step_uniq per run.
 * @returns job id (lower case) -> due instant of the slot
 */
export async function selectAllAheadSlots(db: SqlClient, now: Date): Promise<Map<string, Date>> {
  const rows = await db.$queryRawUnsafe<{ jobId: string; slotAt: Date }[]>(
    preparedSql('select-all-ahead-slots', `SELECT r.job_id AS "jobId", min(x.first) AS "slotAt"
       FROM runs r
       ${SLOT_OF_ANY.join}
      WHERE r.status IN ('pending', 'running')
        AND r.scheduled_for > $1::timestamptz - ${MAX_STAGGER_SQL}
        AND ${SLOT_OF_ANY.where}
      GROUP BY r.job_id`),
    now,
  );
  return new Map(rows.map((r) => [r.jobId, r.slotAt]));
}

/** The slot selectAheadSlots / selectAllAheadSlots found for `jobId` (any case), or null. */
export function aheadSlotOf(slots: Map<string, Date>, jobId: string): Date | null {
  return slots.get(jobId.toLowerCase()) ?? null;
}

/**
 * SQL true for a task `t` that never started its first attempt: pending on it (never claimed, or
 * handed back unstarted), or claimed and still held (its start not recorded) by a worker whose
 * lease expired at `now` — the reaper would hand it back unstarted (release-tasks.ts `reaped`), but
 * the tick may come first after a restart, and the slot must not wait a lease for it.
 */
const NEVER_STARTED_SQL = (t: string, now: string) => firstAttemptNotStartedSql(t, `${t}.held AND ${t}.lease_until < ${now}`);

/**
 * The job's run created ahead of a slot that was then missed (docs/on-time.md "Look-ahead firing",
 * row "misfire"): its newest active run (one end of runs_active_idx, as selectNewestAheadRun: only
 * that one can have been created ahead) when it is a schedule run created before its slot's due
 * instant (its earliest task `schedule_at` later than the run's `created_at`), no task of it ever
 * started (NEVER_STARTED_SQL: pending on its first attempt, or held by a worker whose lease expired), and
 * its slot's due instant lies more than `graceMs` before `now`. Such a run is withdrawn by the tick
 * (cancel-ahead-runs.ts withdrawMissedAheadRun) and its slot decided by the misfire policy.
 *
 * Locks the run row, then its open tasks in ascending id (lock order job -> run -> task; call with
 * the job row held), and decides "never started" again on the locked task rows, so a claim that
 * committed meanwhile wins (the run is then left alone) and a later claim skips the locked tasks.
 * @returns the run (id, nominal slot, due instant, whether it is the job's newest open run), or nothing
 */
export async function selectMissedAheadRun(
  tx: SqlClient,
  p: { jobId: string; graceMs: number },
  now: Date,
): Promise<{ id: string; scheduledFor: Date; scheduleAt: Date; newest: boolean }[]> {
  const run = await findMissedAheadRun(tx, p, now);
  if (!run) return [];
  if (!(await lockOpenRun(tx, run))) return [];
  const tasks = await tx.$queryRawUnsafe<{ untouched: boolean }[]>(
    preparedSql('lock-missed-ahead-tasks', `SELECT bool_and(${NEVER_STARTED_SQL('l', '$3::timestamptz')}) AS untouched
       FROM (SELECT attempt, status, held, lease_until FROM tasks WHERE run_id = $1::uuid AND scheduled_for = $2::timestamptz
              ORDER BY id FOR UPDATE) l`),
    run.id, run.scheduledFor, now,
  );
  return tasks[0]?.untouched ? [run] : [];
}

/**
 * selectMissedAheadRun's search, without locks: the job's run created ahead of a slot missed by
 * more than `graceMs`, or null. Read-only (a backfill's preview reads it: lib/jobs/backfill-job.ts).
 */
export async function findMissedAheadRun(
  tx: SqlClient,
  p: { jobId: string; graceMs: number },
  now: Date,
): Promise<{ id: string; scheduledFor: Date; scheduleAt: Date; newest: boolean } | null> {
  const found = await tx.$queryRawUnsafe<{ id: string; scheduledFor: Date; scheduleAt: Date; newest: boolean }[]>(
    preparedSql('select-missed-ahead-run', `SELECT n.id, n.scheduled_for AS "scheduledFor", x.first AS "scheduleAt", n.newest
       FROM ((SELECT r.id, r.scheduled_for, r.trigger, r.created_at, true AS newest FROM runs r
               WHERE r.job_id = $1 AND r.status IN ('pending', 'running')
               ORDER BY r.created_at DESC, r.scheduled_for DESC, r.id DESC LIMIT 1)
             UNION ALL
             -- a serial_execution job fires its slots while a run is active: the runs fired at their
             -- slots behind a stale run created ahead leave it the oldest open run, not the newest
             (SELECT r.id, r.scheduled_for, r.trigger, r.created_at, false AS newest FROM runs r
               WHERE r.job_id = $1 AND r.status IN ('pending', 'running')
               ORDER BY r.created_at, r.scheduled_for, r.id LIMIT 1)) n
       CROSS JOIN LATERAL (SELECT min(t.schedule_at) AS first, bool_and(${NEVER_STARTED_SQL('t', '$2::timestamptz')}) AS untouched
                             FROM tasks t WHERE t.run_id = n.id AND t.scheduled_for = n.scheduled_for) x
      WHERE n.trigger = 'schedule' AND x.untouched AND x.first > n.created_at
        AND x.first < $2::timestamptz - $3::double precision * interval '1 millisecond'
      ORDER BY n.newest DESC LIMIT 1`),
    p.jobId, now, p.graceMs,
  );
  return found[0] ?? null;
}
