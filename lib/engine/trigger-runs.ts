import { randomBytes, randomUUID } from 'node:crypto';
import { directSqlPool, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { withdrawAheadRunOf } from './cancel-ahead-runs.ts';
import { finishRunIfDone } from './settle.ts';
import { triggerCause, type TriggerAuthorize } from './trigger-run.ts';
import { cancelRunTasks } from './sql/cancel-run-tasks.ts';
import { insertRuns, type NewRun } from './sql/insert-runs.ts';
import { loadRun } from './sql/load-run.ts';
import { lockJob } from './sql/lock-job.ts';
import { lockRuns } from './sql/lock-job-row.ts';
import type { Run, RunTrigger, TriggerOutcome } from './types.ts';

/** Most runs one triggerRuns call creates (the REST body limit keeps requests far below this anyway). */
export const MAX_BULK_RUNS = 1000;

export interface TriggerRunsInput {
  jobId: string;
  trigger: Exclude<RunTrigger, 'schedule' | 'retry'>;
  triggeredBy: string;
  /** nominal fire time of every run (UTC) */
  scheduledFor: Date;
  /** one entry per run, in order; `payload` as triggerRun's */
  runs: { payload?: Record<string, unknown> }[];
}

/**
 * Creates many runs of one job in ONE transaction (bulk enqueue; docs/on-time.md): the job
 * row is locked once, and the runs with all their tasks, dependencies and task_logs rows are
 * inserted by one statement (insert-runs.ts). A run created ahead of a slot still to come is
 * withdrawn first, as by triggerRun. The job's block strategy applies as if the
 * runs were triggered one after the other, in order:
 * - discard_later: with an active run every entry is recorded `skipped`; otherwise the
 *   first starts and the others are `skipped` (blocked by it);
 * - serial_execution: every entry is created; each waits for the one before (gated), the
 *   first only when the job already has an active run; they start in input order;
 * - cover_early: each entry would cancel the one before it, so all but the last are
 *   recorded `skipped` (reason names the covering run), earlier active runs are cancelled,
 *   and the last starts.
 * @returns the runs in input order with each one's outcome (TriggerOutcome of triggerRun)
 * @throws DomainError('not_found') for a missing/deleted job; ('validation') for an empty
 *   list or more than MAX_BULK_RUNS entries (field `runs`). Nothing is written on error.
 * @param now the clock (UTC): created_at, schedule_at of the tasks
 */
export async function triggerRuns(
  db: Db,
  input: TriggerRunsInput,
  now: Date = new Date(),
  opts: { authorize?: TriggerAuthorize } = {},
): Promise<{ run: Run; outcome: TriggerOutcome }[]> {
  if (!UUID_RE.test(input.jobId)) throw new DomainError('not_found', `job ${input.jobId} not found`);
  if (input.runs.length === 0 || input.runs.length > MAX_BULK_RUNS) {
    throw new DomainError('validation', `runs must have 1 to ${MAX_BULK_RUNS} entries`, { runs: `1 to ${MAX_BULK_RUNS} entries` });
  }
  // Outside a caller's transaction, the transaction goes over the client's own connections
  // without Prisma's query layer (lib/db.ts directSqlPool).
  return withEngineTransaction(directSqlPool(db) ?? db, async (tx) => {
    const found = await lockJob(tx, input.jobId);
    if (!found) throw new DomainError('not_found', `job ${input.jobId} not found`);
    // the caller's permission check, under the job lock (triggerRun's opts.authorize)
    await opts.authorize?.(tx);
    // A serial_execution queue is released oldest first by (created_at, scheduled_for, id)
    // (release-serial-run.ts); the runs share the first two, so ascending ids keep input order.
    const ids = input.runs.map(() => randomUUID()).sort();
    const job = await withdrawAheadRunOf(tx, found, { actor: input.triggeredBy, cause: triggerCause(input, ids[0]!) }, now);
    const traceIds = randomBytes(16 * ids.length).toString('hex');
    const last = ids.length - 1;
    const runs: NewRun[] = new Array(ids.length);
    const outcomes: TriggerOutcome[] = new Array(ids.length);
    for (let i = 0; i <= last; i++) {
      // What the block strategy makes of entry i, as if the entries were triggered one by one.
      let status: NewRun['status'] = 'pending';
      let reason: string | null = null;
      let gated = false;
      let outcome: TriggerOutcome = 'started';
      switch (job.blockStrategy) {
        case 'discard_later':
          if (job.oldestActive || i > 0) {
            status = 'skipped';
            reason = `blocked: previous run ${job.oldestActive ?? ids[0]} still active`;
          }
          break;
        case 'serial_execution': {
          const before = i > 0 ? ids[i - 1]! : job.newestActive;
          if (before) {
            reason = `queued: waiting for run ${before} (serial_execution)`;
            gated = true;
            outcome = 'queued';
          }
          break;
        }
        case 'cover_early':
          if (i < last) {
            status = 'skipped';
            reason = `covered: run ${ids[last]} of the same trigger (cover_early)`;
          } else if (job.oldestActive) {
            outcome = 'covered';
          }
          break;
      }
      if (status === 'skipped') outcome = 'skipped';
      runs[i] = {
        id: ids[i]!, jobId: job.id, trigger: input.trigger, triggeredBy: input.triggeredBy, scheduledFor: input.scheduledFor,
        scheduleAt: null, status, reason, params: input.runs[i]!.payload ?? {}, traceId: traceIds.slice(32 * i, 32 * (i + 1)),
        parentRunId: null, gated, countOnJob: status === 'pending',
      };
      outcomes[i] = outcome;
    }
    const inserted = await insertRuns(tx, runs, now);
    if (inserted.length !== runs.length) throw new DomainError('not_found', `job ${input.jobId} not found`);
    if (job.blockStrategy === 'cover_early' && job.activeIds.length > 0) {
      const covered = job.activeIds;
      await lockRuns(tx, covered); // lock order (lock-order.ts): job (held), runs, then their tasks
      await cancelRunTasks(tx, { runIds: covered, message: 'cancelled: covered by a newer run (cover_early)', actor: input.triggeredBy }, now);
      for (const id of covered) await finishRunIfDone(tx, id, now);
    }
    const out: { run: Run; outcome: TriggerOutcome }[] = [];
    for (let i = 0; i < inserted.length; i++) {
      const { tasks, ...run } = inserted[i]!;
      let result: Run = run;
      if (tasks === 0 && run.status === 'pending') {
        // A job without steps has nothing to wait for.
        await finishRunIfDone(tx, run.id, now);
        result = await loadRun(tx, run.id);
      }
      out.push({ run: result, outcome: outcomes[i]! });
    }
    return out;
  });
}
