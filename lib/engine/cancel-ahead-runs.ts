import type { Db, SqlClient } from '../db.ts';
import { withEngineTransaction } from './pg.ts';
import { finishRunIfDone } from './settle.ts';
import { cancelRunTasks } from './sql/cancel-run-tasks.ts';
import { recheckAheadRuns, selectAheadRuns, selectJobsWithMissedAheadRuns, tickDecidesJobSql, selectMissedAheadRun, selectNewestAheadRun, selectQueuedRuns, rewindNextRunAt } from './sql/ahead-runs.ts';
import { setRunError } from './sql/set-run-error.ts';
import { lockJob, type LockedJob } from './sql/lock-job.ts';

/**
 * How the error of a schedule run created ahead and cancelled before it started begins (docs/on-time.md):
 * `cancelled` by a pause, edit or delete of its job (cancelAheadRuns), `withdrawn` by another run of the
 * job that came first (withdrawAheadRun), `missed` by the tick when its slot passed by more than the
 * misfire grace before it started (withdrawMissedAheadRun). The overview leaves such runs out of its
 * counts (lib/stats getOverview).
 */
export const BEFORE_SLOT_ERROR = {
  cancelled: 'cancelled before its slot: ',
  withdrawn: 'withdrawn before its slot: ',
  missed: 'withdrawn, its slot missed: ',
} as const;

export interface CancelAheadResult {
  /** runs cancelled (created ahead of a slot that is still in the future) */
  cancelledRunIds: string[];
  /** the job's next_run_at afterwards (moved back to the earliest cancelled slot when the job is still active) */
  nextRunAt: Date | null;
}

/**
 * A job was paused, edited or deleted: its schedule runs created ahead of their slot
 * (docs/on-time.md) whose slot is still in the future (every task on its first attempt and
 * pending, or claimed ahead and held by a worker until a start still to come; the earliest
 * schedule_at > now) are cancelled, their error `cancelled before its slot: <reason>` (BEFORE_SLOT_ERROR) — a held task's worker is told to drop it
 * (cancel-run-tasks.ts NOTIFY). Without look-ahead they would not exist
 * yet, and they would run with the old configuration. Each keeps a visible record (run
 * `cancelled`, error = reason, task_logs rows). When the job is still active and not deleted
 * (an edit), next_run_at moves back to the earliest cancelled slot's due instant, so the tick
 * fires that slot again with the new configuration (a cancelled run leaves
 * runs_schedule_fire_uniq).
 *
 * Call inside the transaction that holds the job row (lib/jobs lockJob): lock order job ->
 * run -> task, as triggers. Joins `db` when it is a transaction.
 * @param input.reason what happened to the job, e.g. `job paused by alice@example.com`
 * @param now the clock (UTC): which slots are still in the future; completed_at of the tasks
 */
export async function cancelAheadRuns(
  db: Db,
  input: { jobId: string; actor: string; reason: string; rescheduled?: boolean },
  now: Date = new Date(),
): Promise<CancelAheadResult> {
  const reason = `${BEFORE_SLOT_ERROR.cancelled}${input.reason}`;
  return withEngineTransaction(db, async (tx) => cancelAhead(tx, await selectAheadRuns(tx, { jobId: input.jobId }, now), { ...input, reason }, now));
}

/**
 * A run created ahead of its slot is not active before that slot (docs/on-time.md "Look-ahead
 * firing", row "a run that comes first"): without look-ahead it would not exist yet. So when another
 * run of the job is about to become active first (any trigger but the tick's look-ahead, or an
 * operator re-opening a finished run), the job's run created ahead is withdrawn: cancelled as by
 * cancelAheadRuns, its error saying `withdrawn before its slot: <cause>; the slot fires again
 * when due`, and next_run_at moved back to its slot — a job whose schedule ended with that slot
 * (a `once` job, an `endAt`: the tick paused it when it fired the slot ahead) is made active
 * again (rewindNextRunAt `reviveEnded`). The tick then fires that slot when it is due, and the
 * job's block strategy is decided there against the runs active at that moment, exactly as
 * without look-ahead.
 *
 * Call inside the transaction that holds the job row, before reading the job's active runs for
 * a block strategy (lock order job -> run -> task).
 * @param input.cause what came first, e.g. `a manual run <its id> by alice@example.com came first` (trigger-run.ts triggerCause)
 * @param input.exceptRunId the run being re-opened: never withdrawn itself (an operator action on
 *   a run created ahead is refused or applied to it, not to a copy)
 * @param now the clock (UTC): whether the slot is still in the future
 * @returns the withdrawn run's id, or null when the job had none ahead
 */
export async function withdrawAheadRun(
  tx: SqlClient,
  input: { jobId: string; actor: string; cause: string; exceptRunId?: string },
  now: Date,
): Promise<string | null> {
  const runs = (await selectNewestAheadRun(tx, { jobId: input.jobId }, now)).filter((r) => r.id !== input.exceptRunId);
  const reason = `${BEFORE_SLOT_ERROR.withdrawn}${input.cause}; the slot fires again when due`;
  const { cancelledRunIds } = await cancelAhead(tx, runs, { jobId: input.jobId, actor: input.actor, reason }, now, true);
  return cancelledRunIds[0] ?? null;
}

/**
 * A run created ahead of its slot that did not start within the misfire grace of that slot (no
 * worker was alive: downtime) is a missed slot like the others (docs/on-time.md "Look-ahead
 * firing", row "misfire"; README "Scheduling semantics", misfire policy). The tick, holding the job
 * row of a due job, withdraws it (selectMissedAheadRun: the job's newest active run, created ahead,
 * never started, its slot due before `now - graceMs`): cancelled, its error `withdrawn, its slot
 * missed: …` (BEFORE_SLOT_ERROR.missed), its tasks cancelled. The cancelled run leaves
 * runs_schedule_fire_uniq, so the tick then plans the job again from that slot and its misfire
 * policy records or fires the slot together with the other missed slots. next_run_at is left to
 * the tick (it advances the job in the same transaction).
 * @param input.graceMs the tick's misfire grace (TICKFLOW_MISFIRE_GRACE_MS)
 * @param input.policy the job's misfire policy, named in the error
 * @param input.backfill instead of the two above: a backfill of these slots (UTC instants) is
 *   taking the slot (backfill-runs.ts): such a run is withdrawn as soon as its slot is due (no
 *   grace), only when its slot is among them, its error naming the backfill's actor
 * @param now the tick's clock (UTC)
 * @returns the withdrawn run (id, nominal slot, due instant), or null when the job has none
 */
export async function withdrawMissedAheadRun(
  tx: SqlClient,
  input: { jobId: string; actor: string; graceMs: number; policy: string } | { jobId: string; actor: string; backfill: Date[] },
  now: Date,
): Promise<{ id: string; scheduledFor: Date; scheduleAt: Date; newest: boolean } | null> {
  const graceMs = 'backfill' in input ? 0 : input.graceMs;
  const [run] = await selectMissedAheadRun(tx, { jobId: input.jobId, graceMs }, now);
  if (!run) return null;
  if ('backfill' in input && !input.backfill.some((slot) => slot.getTime() === run.scheduledFor.getTime())) return null;
  const late = Math.round((now.getTime() - run.scheduleAt.getTime()) / 1000);
  const reason = `${BEFORE_SLOT_ERROR.missed}created ahead of its slot due ${run.scheduleAt.toISOString()}, not started ${late} s later`
    + ('backfill' in input
      ? `; the slot is backfilled by ${input.actor}`
      : ` (misfire grace ${Math.round(input.graceMs / 1000)} s); the slot is decided by the misfire policy (${input.policy})`);
  await setRunError(tx, { runId: run.id, error: reason }, now);
  // never started (decided on the locked rows): a held task's start, even one already passed, was
  // only planned, so neither the task nor the run keeps it (the slot is free: docs/recovery.md)
  await cancelRunTasks(tx, { runIds: [run.id], message: reason, actor: input.actor, heldNotStarted: true }, now);
  await finishRunIfDone(tx, run.id, now);
  return run;
}

/**
 * What a worker that claims but does not tick does before its first claim, at its start and when
 * the database answers again after an outage (worker/create-worker.ts): every run created ahead of
 * a slot missed by more than the grace while no worker was alive is withdrawn as the tick would
 * withdraw it (withdrawMissedAheadRun), and its job made due at that slot (rewindNextRunAt; not for
 * an older run behind which later slots have their runs), so that the misfire policy decides the
 * slot when a ticker passes, instead of this worker's claim starting the run late (docs/on-time.md
 * row "misfire"). Nothing is fired here. One transaction per job, its row locked waiting for a
 * ticker that holds it (which may be withdrawing the run itself): skipping it would let this
 * worker's claims begin before that tick committed; the run is then found withdrawn already.
 * @param p.graceMs the misfire grace (TICKFLOW_MISFIRE_GRACE_MS); p.actor named in the task logs
 * @param now the worker's clock (UTC)
 * @returns the withdrawn runs' ids
 */
export async function withdrawMissedAheadRuns(db: Db, p: { graceMs: number; actor: string }, now: Date = new Date()): Promise<string[]> {
  const jobs = await selectJobsWithMissedAheadRuns(db, { graceMs: p.graceMs }, now);
  const withdrawn: string[] = [];
  for (const job of jobs) {
    const id = await withEngineTransaction(db, async (tx) => {
      // decided again on the locked row: an operator's pause committed since the select leaves it alone
      const held = await tx.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM jobs j WHERE id = $1::uuid AND ${tickDecidesJobSql('j')} FOR UPDATE`, job.id);
      if (held.length === 0) return null;
      const run = await withdrawMissedAheadRun(tx, { jobId: job.id, actor: p.actor, graceMs: p.graceMs, policy: job.policy }, now);
      if (run?.newest) await rewindNextRunAt(tx, { jobId: job.id, to: run.scheduleAt, reviveEnded: true });
      return run?.id ?? null;
    });
    if (id) withdrawn.push(id);
  }
  return withdrawn;
}

/**
 * A job was deleted, or what it runs or where was changed (lib/jobs/store.ts recordVersion): its runs
 * that have not started (selectQueuedRuns: queued behind a serial_execution run, waiting for a worker
 * or a resource key, or claimed and still held) are cancelled, their error `cancelled before it
 * started: <reason>` — a job in the recycle bin starts nothing more, and a run not started keeps in its
 * tasks the command it was created with, which an edit replaced. Runs already going finish (cancel
 * them to stop them). A restore does not bring them back. Call inside the transaction that holds the
 * job row, after cancelAheadRuns (lock order job -> run -> task). Joins `db` when it is a transaction.
 * @param input.reason what happened, e.g. `job deleted by alice@example.com`
 * @returns the cancelled runs' ids
 */
export async function cancelQueuedRuns(db: Db, input: { jobId: string; actor: string; reason: string }, now: Date = new Date()): Promise<string[]> {
  return withEngineTransaction(db, async (tx) => {
    const runs = await selectQueuedRuns(tx, { jobId: input.jobId });
    if (runs.length === 0) return [];
    const reason = `${QUEUED_CANCELLED_ERROR}${input.reason}`;
    const ids = runs.map((r) => r.id);
    for (const id of ids) await setRunError(tx, { runId: id, error: reason }, now);
    await cancelRunTasks(tx, { runIds: ids, message: reason, actor: input.actor }, now);
    for (const id of ids) await finishRunIfDone(tx, id, now);
    return ids;
  });
}

/** How the error of a run cancelled before it started by its job's delete or edit begins (cancelQueuedRuns). */
export const QUEUED_CANCELLED_ERROR = 'cancelled before it started: ';

/**
 * For a trigger holding `job` (lock-job.ts lockJob): withdraws the job's run created ahead, if it
 * has one (withdrawAheadRun), and returns the job's active runs read again without it — or
 * `job` as it is when it had no active run or none created ahead.
 * @param input.followsRun passed on to lockJob
 */
export async function withdrawAheadRunOf(
  tx: SqlClient,
  job: LockedJob,
  input: { actor: string; cause: string; followsRun?: string },
  now: Date,
): Promise<LockedJob> {
  if (job.oldestActive === null) return job;
  if (!(await withdrawAheadRun(tx, { jobId: job.id, actor: input.actor, cause: input.cause }, now))) return job;
  return (await lockJob(tx, job.id, { followsRun: input.followsRun }))!;
}

async function cancelAhead(
  tx: SqlClient,
  locked: { id: string; scheduleAt: Date }[],
  input: { jobId: string; actor: string; reason: string; rescheduled?: boolean },
  requestedAt: Date,
  reviveEnded = false,
): Promise<CancelAheadResult> {
  if (locked.length === 0) return { cancelledRunIds: [], nextRunAt: null };
  // Decided again once the rows are held, at the clock of that moment: a slot that came while the
  // action waited for its locks (or worked through a bulk action's other jobs) is left alone. The
  // cancel is stamped with the action's clock, but never before the run it cancels was created
  // (a run the tick made while the action waited for the job row).
  const recheck = await recheckAheadRuns(tx, locked.map((r) => r.id), requestedAt);
  const runs = locked.filter((r) => recheck.ids.includes(r.id.toLowerCase()));
  if (runs.length === 0) return { cancelledRunIds: [], nextRunAt: null };
  const now = recheck.latestCreatedAt && recheck.latestCreatedAt > requestedAt ? recheck.latestCreatedAt : requestedAt;
  const ids = runs.map((r) => r.id);
  for (const id of ids) await setRunError(tx, { runId: id, error: input.reason }, now);
  await cancelRunTasks(tx, { runIds: ids, message: input.reason, actor: input.actor }, now);
  for (const id of ids) await finishRunIfDone(tx, id, now);
  // An edit of the schedule has stored the new schedule's first due instant after now, which is never later than a
  // cancelled slot the new schedule still fires; a cancelled slot it does not fire (another zone, expression or
  // stagger) must not come back as the next fire: the tick would pass it without firing, and until then the job
  // would show a fire time it does not have.
  if (input.rescheduled) return { cancelledRunIds: ids, nextRunAt: null };
  const earliest = runs.reduce((m, r) => (r.scheduleAt < m ? r.scheduleAt : m), runs[0]!.scheduleAt);
  const nextRunAt = await rewindNextRunAt(tx, { jobId: input.jobId, to: earliest, reviveEnded });
  return { cancelledRunIds: ids, nextRunAt };
}
