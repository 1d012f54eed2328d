import { randomBytes, randomUUID } from 'node:crypto';
import { directSqlPool, type Db, type SqlClient } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, isRootClient, withEngineTransaction } from './pg.ts';
import { insertIdleRun } from './idle-trigger-batch.ts';
import { withdrawAheadRunOf } from './cancel-ahead-runs.ts';
import { finishRunIfDone } from './settle.ts';
import { cancelRunTasks } from './sql/cancel-run-tasks.ts';
import { insertRun } from './sql/insert-run.ts';
import { insertRuns, type InsertedRun, type NewRun } from './sql/insert-runs.ts';
import { lockJob, type LockedJob } from './sql/lock-job.ts';
import { lockRuns } from './sql/lock-job-row.ts';
import { loadRun } from './sql/load-run.ts';
import type { Run, TriggerRunInput, TriggerRunResult } from './types.ts';

/**
 * Creates a run of a job (docs/design.md §4 block strategies).
 *
 * Outside a transaction, a job with steps and no active run (no block strategy to apply) gets
 * its run from one locking insert statement, shared with concurrent such triggers of the same
 * client (idle-trigger-batch.ts); every other case, and every call inside a transaction, goes
 * the transaction path below. Both give the same rows and the same outcome.
 *
 * In ONE transaction (joins `db` when it is already a transaction):
 * 1. locks the job row FOR UPDATE — triggers of one job serialise;
 * 2. withdraws the job's run created ahead of a slot still to come, which is not active yet
 *    (cancel-ahead-runs.ts withdrawAheadRun: the tick fires that slot again when it is due);
 * 3. applies the job's block strategy against its active (pending/running) runs,
 *    whatever the trigger kind:
 *    - discard_later: records a `skipped` run, reason 'blocked: previous run <id> still active' -> outcome 'skipped';
 *    - serial_execution: creates the run `pending` with its root tasks gated
 *      (pending_parents + 1 on every task without parents) so nothing is claimable;
 *      when the earlier run ends, finalisation releases the oldest queued run
 *      (release-serial-run.ts) -> outcome 'queued';
 *    - cover_early: cancels the active runs (pending and running tasks -> cancelled,
 *      so late completions are refused; workers get NOTIFY tickflow_cancel), then
 *      starts the new run -> outcome 'covered';
 *    - `followsRun` (a fire_all catch-up run after an earlier one of the same tick
 *      that is still active): queued like serial_execution whatever the strategy -> 'queued';
 * 4. inserts the run with one task per step, one dependency per edge, the 'created'
 *    task_logs rows, bumps total_runs/last_run_at and NOTIFYs tickflow_tasks when a
 *    task is ready — one statement (insert-runs.ts).
 *
 * @param input.scheduledFor nominal fire time (UTC instant, ms precision)
 * @param input.payload merged over job.payload and each step.payload (shallow; trigger wins)
 * @param now the clock (injectable): created_at, schedule_at of the tasks
 * @param opts.authorize the caller's permission check, run under the job row lock before anything
 *   is written (a refusal writes nothing): what it reads of the job cannot change before the
 *   insert. Such a trigger takes the transaction, never the one-statement path.
 * @throws DomainError('not_found') when the job does not exist or is deleted.
 * A second schedule-trigger run for the same (job, scheduledFor) fails with a
 * unique violation of runs_schedule_fire_uniq (the tick relies on it).
 */
export async function triggerRun(db: Db, input: TriggerRunInput, now: Date = new Date(), opts: { authorize?: TriggerAuthorize } = {}): Promise<TriggerRunResult> {
  if (!UUID_RE.test(input.jobId)) throw new DomainError('not_found', `job ${input.jobId} not found`);
  if (isRootClient(db) && input.followsRun === undefined && !opts.authorize) {
    // The common case, a job with steps and no active run: no block strategy applies, so the
    // lock, the check and the insert are one statement outside a transaction, shared with the
    // client's other such triggers (idle-trigger-batch.ts). Anything else takes the transaction.
    const run = await insertIdleRun(db, { ...newRun(input, 'pending', null, false, true), at: now });
    if (run) return { run: asRun(run), outcome: 'started' };
  }
  // The transaction goes over the client's own connections without Prisma's query layer
  // (lib/db.ts directSqlPool), or joins the caller's transaction.
  return withEngineTransaction(directSqlPool(db) ?? db, (tx: SqlClient) => triggerInTx(tx, input, now, undefined, opts.authorize));
}

/** A caller's check run inside a trigger's transaction once the job row is locked (see triggerRun). */
export type TriggerAuthorize = (tx: SqlClient) => Promise<void>;

/**
 * The tick's look-ahead trigger (docs/on-time.md): creates a schedule run for a slot that is not
 * due yet, its tasks claimable from `input.scheduleAt` (the slot's due instant), but only when the
 * job has no active run. Then no block strategy can apply, and the run is exactly what the tick
 * would have created at the slot. With an active run it creates nothing and returns null: the
 * block strategy must be decided at the slot, so the tick fires that slot when it is due.
 * Joins `db` when it is a transaction. Same errors as triggerRun.
 */
export async function triggerRunAhead(
  db: Db,
  input: Omit<TriggerRunInput, 'trigger' | 'parentRunId'> & { scheduleAt: Date },
  now: Date = new Date(),
): Promise<Run | null> {
  if (!UUID_RE.test(input.jobId)) throw new DomainError('not_found', `job ${input.jobId} not found`);
  return withEngineTransaction(db, async (tx) => {
    const job = await lockJob(tx, input.jobId);
    if (!job) throw new DomainError('not_found', `job ${input.jobId} not found`);
    if (job.oldestActive) return null;
    return (await triggerInTx(tx, { ...input, trigger: 'schedule' }, now, job)).run;
  });
}

async function triggerInTx(tx: SqlClient, input: TriggerRunInput, now: Date, locked?: LockedJob, authorize?: TriggerAuthorize): Promise<TriggerRunResult> {
  const found = locked ?? (await lockJob(tx, input.jobId, { followsRun: input.followsRun }));
  if (!found) throw new DomainError('not_found', `job ${input.jobId} not found`);
  await authorize?.(tx);
  const runId = randomUUID();
  // A run created ahead is not active yet (cancel-ahead-runs.ts): it gives way before the strategy reads.
  const job = await withdrawAheadRunOf(tx, found, { actor: input.triggeredBy, cause: triggerCause(input, runId), followsRun: input.followsRun }, now);
  const busy = job.oldestActive !== null;

  // Catch-up runs of one tick follow each other (fire_all): queued, never discarded or covering.
  const follows = input.followsRun !== undefined && job.followsActive;
  if (busy && job.blockStrategy === 'discard_later' && !follows) {
    const [run] = await insertRuns(tx, [newRun(input, 'skipped', `blocked: previous run ${job.oldestActive} still active`, false, false, runId)], now);
    return { run: asRun(run!), outcome: 'skipped' };
  }

  const gated = busy && (job.blockStrategy === 'serial_execution' || follows);
  // The run and its tasks in one statement (insert-runs.ts), before cover_early cancels anything:
  // a second schedule run of the same slot must fail on runs_schedule_fire_uniq while the first
  // still holds it (a cancelled run leaves it).
  const reason = gated ? `queued: waiting for run ${job.newestActive} (serial_execution)` : null;
  const [run] = await insertRuns(tx, [newRun(input, 'pending', reason, gated, true, runId)], now);
  if (!run) throw new DomainError('not_found', `job ${input.jobId} not found`);

  let coveredRunIds: string[] | undefined;
  if (busy && job.blockStrategy === 'cover_early' && !follows) {
    coveredRunIds = job.activeIds;
    await lockRuns(tx, coveredRunIds); // lock order: job (held), runs, then their tasks
    await cancelRunTasks(tx, { runIds: coveredRunIds, message: 'cancelled: covered by a newer run (cover_early)', actor: input.triggeredBy }, now);
    for (const id of coveredRunIds) await finishRunIfDone(tx, id, now);
  }
  let result: Run = asRun(run);
  if (run.tasks === 0) {
    // A job without steps has nothing to wait for: its run is complete at once.
    await finishRunIfDone(tx, run.id, now);
    result = await loadRun(tx, run.id);
  }
  return { run: result, outcome: gated ? 'queued' : coveredRunIds ? 'covered' : 'started', ...(coveredRunIds ? { coveredRunIds } : {}) };
}

/**
 * What came before a withdrawn run created ahead (withdrawAheadRun's cause), naming the run that
 * came first (`runId`, the first of several) so that the withdrawn run's page links to it.
 */
export function triggerCause(input: { trigger: string; triggeredBy: string }, runId: string): string {
  return `${/^[aeiou]/.test(input.trigger) ? 'an' : 'a'} ${input.trigger} run ${runId} by ${input.triggeredBy} came first`;
}

/** The insert-runs row of a trigger: run id `id` (a fresh one by default) and a fresh trace id. */
function newRun(input: TriggerRunInput, status: NewRun['status'], reason: string | null, gated: boolean, countOnJob: boolean, id: string = randomUUID()): NewRun {
  return {
    id,
    jobId: input.jobId,
    trigger: input.trigger,
    triggeredBy: input.triggeredBy,
    scheduledFor: input.scheduledFor,
    scheduleAt: input.scheduleAt ?? null,
    status,
    reason,
    params: input.payload ?? {},
    traceId: randomBytes(16).toString('hex'),
    parentRunId: input.parentRunId ?? null,
    gated,
    countOnJob,
  };
}

/** The Run without insert-runs' task count. */
function asRun(r: InsertedRun): Run {
  const { tasks: _tasks, ...run } = r;
  return run;
}

/**
 * Records a run that will never execute (status `skipped`, finished at `now`):
 * a misfired slot the policy skips, or a trigger discarded by a block strategy.
 * Does not count in jobs.total_runs. `reason` is stored as given ('misfire',
 * 'blocked: ...'). Trigger kind is 'schedule'.
 * @throws DomainError('not_found') for a missing/deleted job; a duplicate
 *   (job, scheduledFor) schedule run fails on runs_schedule_fire_uniq.
 */
export async function recordSkippedRun(
  db: Db,
  input: { jobId: string; scheduledFor: Date; reason: 'misfire' | 'blocked' | string; triggeredBy: string },
  now: Date = new Date(),
): Promise<Run> {
  if (!UUID_RE.test(input.jobId)) throw new DomainError('not_found', `job ${input.jobId} not found`);
  return withEngineTransaction(db, async (tx) => {
    const run = await insertRun(tx, {
      jobId: input.jobId,
      trigger: 'schedule',
      triggeredBy: input.triggeredBy,
      scheduledFor: input.scheduledFor,
      status: 'skipped',
      reason: input.reason,
      params: {},
      traceId: randomBytes(16).toString('hex'),
      parentRunId: null,
      countOnJob: false,
    }, now);
    if (!run) throw new DomainError('not_found', `job ${input.jobId} not found`);
    return run;
  });
}
