import { inTransaction, LONG_TRANSACTION_TIMEOUT_MS, type Db } from '../db.ts';
import { DomainError, isDomainError } from '../errors.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { BulkJobsInput } from '../api/schemas.ts';
import { parseOrThrow } from '../api/validation.ts';
import { deleteJob } from './delete-job.ts';
import type { JobView } from './job-view.ts';
import { pauseJob } from './pause-job.ts';
import { resumeJob } from './resume-job.ts';
import { lockAheadRunsOfJobs } from '../engine/sql/ahead-runs.ts';

export type BulkAction = 'pause' | 'resume' | 'delete';

/**
 * One job's refusal as the batch's: the same code and message, named at the job's place in the
 * request (`ids.3`), since the job's own fields (`handler`, `schedule.cron`) are not the
 * request's. Anything that is not a DomainError is passed on unchanged.
 */
function atItem(e: unknown, field: string): unknown {
  if (!isDomainError(e)) return e;
  const inner = Object.entries(e.fields ?? {}).map(([k, m]) => `${k}: ${m}`);
  return new DomainError(e.code, e.message, { [field]: inner.length ? inner.join('; ') : e.message }, e.detail);
}

/**
 * Pauses, resumes or deletes several jobs in ONE transaction (all or nothing, POST /jobs/bulk:
 * an unknown id fails the whole batch with 404). Input `{ ids, reason? }`. A refused job
 * is named at its place in `ids` (`fields: { "ids.1": … }`).
 * A pause or delete cancels each job's runs created ahead of their slot: the
 * rows that takes are locked first, for all the jobs at once in the engine's
 * lock order (lib/engine/sql/ahead-runs.ts lockAheadRunsOfJobs), so that the
 * action can wait neither on another bulk action nor on a worker in a cycle.
 */
export async function bulkJobs(db: Db, action: BulkAction, rawInput: unknown, actor: Actor, now = new Date()): Promise<JobView[]> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(BulkJobsInput, rawInput);
  const ids = [...new Set(input.ids)].sort();
  const op = action === 'pause' ? pauseJob : action === 'resume' ? resumeJob : deleteJob;
  return inTransaction(db, async (tx) => {
    if (action !== 'resume') await lockAheadRunsOfJobs(tx, ids, now);
    const out: JobView[] = [];
    for (const id of ids) {
      try {
        out.push(await op(tx, id, actor, { reason: input.reason }, now));
      } catch (e) {
        throw atItem(e, `ids.${input.ids.indexOf(id)}`);
      }
    }
    return out;
  }, { timeoutMs: LONG_TRANSACTION_TIMEOUT_MS }); // job by job: up to 500 of them
}

/** One job's outcome in bulkJobsEach: done (the job as it is now), or refused with the single action's message. */
export type BulkItemResult = { id: string; ok: true; job: JobView } | { id: string; ok: false; code: string; message: string };

/**
 * The console's bulk Pause, Resume and Delete: each job on its own, in its own transaction, as its row's button
 * does it, so that one job refused (on Resume a `once` job that has fired, a window that has ended; a job deleted
 * meanwhile) leaves the others done, and each job's outcome is reported, in the order of `ids`.
 * Operators of other schedulers (Airflow's and xxl-job's lists) expect a bulk action to act per item so; a script
 * that needs all or nothing calls POST /jobs/bulk (bulkJobs). A refusal is a result; anything that is not a
 * DomainError (the database gone) still throws, leaving the jobs before it done.
 */
export async function bulkJobsEach(db: Db, action: BulkAction, rawInput: unknown, actor: Actor, now?: Date): Promise<BulkItemResult[]> {
  requireCan(actor, 'jobs.write');
  const input = parseOrThrow(BulkJobsInput, rawInput);
  const op = action === 'pause' ? pauseJob : action === 'resume' ? resumeJob : deleteJob;
  const out: BulkItemResult[] = [];
  for (const id of input.ids) {
    try {
      out.push({ id, ok: true, job: await op(db, id, actor, { reason: input.reason }, now ?? new Date()) });
    } catch (e) {
      if (!isDomainError(e)) throw e;
      out.push({ id, ok: false, code: e.code, message: e.message });
    }
  }
  return out;
}
