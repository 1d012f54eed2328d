import { randomBytes, randomUUID } from 'node:crypto';
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { finishRunIfDone } from './settle.ts';
import { cancelRunTasks } from './sql/cancel-run-tasks.ts';
import { insertRuns, type NewRun } from './sql/insert-runs.ts';
import { lockJob } from './sql/lock-job.ts';
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
 * inserted by one statement (insert-runs.ts). The job's block strategy applies as if the
 * runs were triggered one after the other, in order:
 * - discard_later: with an active run every entry is recorded `skipped`; otherwise the
 *   first starts and the others are `skipped` (blocked by it);
 * - serial_execution: every entry is created; each waits for the one before (gated), the
 *   first only when the job already has an active run;
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
): Promise<{ run: Run; outcome: TriggerOutcome }[]> {
  if (!UUID_RE.test(input.jobId)) throw new DomainError('not_found', `job ${input.jobId} not found`);
  if (input.runs.length === 0 || input.runs.length > MAX_BULK_RUNS) {
    throw new DomainError('validation', `runs must have 1 to ${MAX_BULK_RUNS} entries`, { runs: `1 to ${MAX_BULK_RUNS} entries` });
  }
  return withEngineTransaction(db, async (tx) => {
    const job = await lockJob(tx, input.jobId);
    if (!job) throw new DomainError('not_found', `job ${input.jobId} not found`);
    const ids = input.runs.map(() => randomUUID());
    const last = ids.length - 1;
    const planned: { run: NewRun; outcome: TriggerOutcome }[] = input.runs.map((entry, i) => {
      const base = {
        id: ids[i]!, jobId: job.id, trigger: input.trigger, triggeredBy: input.triggeredBy, scheduledFor: input.scheduledFor,
        scheduleAt: null, params: entry.payload ?? {}, traceId: randomBytes(16).toString('hex'), parentRunId: null,
      };
      const skipped = (reason: string) => ({ run: { ...base, status: 'skipped' as const, reason, gated: false, countOnJob: false }, outcome: 'skipped' as const });
      switch (job.blockStrategy) {
        case 'discard_later': {
          if (job.oldestActive) return skipped(`blocked: previous run ${job.oldestActive} still active`);
          if (i > 0) return skipped(`blocked: previous run ${ids[0]} still active`);
          return { run: { ...base, status: 'pending', reason: null, gated: false, countOnJob: true }, outcome: 'started' };
        }
        case 'serial_execution': {
          const before = i > 0 ? ids[i - 1]! : job.newestActive;
          return before
            ? { run: { ...base, status: 'pending', reason: `queued: waiting for run ${before} (serial_execution)`, gated: true, countOnJob: true }, outcome: 'queued' }
            : { run: { ...base, status: 'pending', reason: null, gated: false, countOnJob: true }, outcome: 'started' };
        }
        case 'cover_early': {
          if (i < last) return skipped(`covered: run ${ids[last]} of the same trigger (cover_early)`);
          return { run: { ...base, status: 'pending', reason: null, gated: false, countOnJob: true }, outcome: job.oldestActive ? 'covered' : 'started' };
        }
      }
    });
    const inserted = await insertRuns(tx, planned.map((p) => p.run), now);
    if (inserted.length !== planned.length) throw new DomainError('not_found', `job ${input.jobId} not found`);
    if (job.blockStrategy === 'cover_early' && job.activeIds.length > 0) {
      const covered = job.activeIds;
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
        result = (await tx.run.findUniqueOrThrow({ where: { id: run.id } })) as Run;
      }
      out.push({ run: result, outcome: planned[i]!.outcome });
    }
    return out;
  });
}
