import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { lockJobRow } from './sql/lock-job-row.ts';
import { retryOfRun, slotTakenSince } from './sql/covered-slots.ts';
import { lockRun } from './sql/lock-run.ts';
import { triggerRun } from './trigger-run.ts';
import type { Run } from './types.ts';

/**
 * Operator retry of a whole run: a `failed`, `timeout` or `cancelled` run gets a
 * NEW run of the same job via triggerRun (trigger 'retry', triggeredBy actor,
 * scheduledFor now, the old run's params as payload, parent_run_id = old run);
 * the job's block strategy applies like for any trigger, so the returned run
 * may be `skipped` (discard_later) or queued. The job's *current* definition is used.
 * `authorize` (the caller's permission check) runs under the job and run locks, before
 * anything is written, with the old run's jobId and params: what the new run would merge over
 * the job's command as it is now (lib/runs/run-actions.ts retryRunAs judges that override).
 * @throws DomainError('not_found') for an unknown run or a deleted job; ('conflict') for a run in another
 *   status, one already retried (its retry was not skipped), or a schedule or backfill run cancelled
 *   before it started whose slot has a run of its own since (covered-slots.ts slotTakenSince: it
 *   would do that slot's work twice).
 */
export async function retryRun(
  db: Db,
  runId: string,
  actor: string,
  now: Date = new Date(),
  opts: { authorize?: (tx: Db, run: { jobId: string; params: unknown }) => Promise<void> } = {},
): Promise<Run> {
  if (!UUID_RE.test(runId)) throw new DomainError('not_found', `run ${runId} not found`);
  return withEngineTransaction(db, async (tx) => {
    // Lock order (lock-order.ts): the job row (triggerRun locks it again) before the run row.
    await lockJobRow(tx, { runId });
    const run = await lockRun(tx, { runId });
    if (!run) throw new DomainError('not_found', `run ${runId} not found`);
    // A job in the recycle bin runs nothing; a purged one has nothing to run (docs/recovery.md
    // "Jobs in the recycle bin"): said as for its tasks (lock-job-row.ts lockJobRowForReopen).
    const [job] = await tx.$queryRawUnsafe<{ deleted: boolean }[]>(`SELECT deleted_at IS NOT NULL AS deleted FROM jobs WHERE id = $1::uuid`, run.jobId);
    if (!job) throw new DomainError('not_found', `The job of run ${runId} was purged: its runs cannot run again`);
    if (job.deleted) throw new DomainError('not_found', `The job of run ${runId} is in the recycle bin: restore it to retry its runs`);
    if (!['failed', 'timeout', 'cancelled'].includes(run.status)) {
      throw new DomainError('conflict', `run ${runId} is ${run.status}: only failed, timeout or cancelled runs can be retried`, undefined, { status: run.status });
    }
    // One retry per run: a double click or two operators at once must not start
    // the work twice. The run row is locked above, so this read (a new statement,
    // a fresh snapshot) sees a retry another transaction just committed. A retry
    // that was skipped by the block strategy does not count.
    const earlier = await retryOfRun(tx, run.id);
    // A schedule or backfill run cancelled before it started (withdrawn, a pause or edit:
    // docs/on-time.md; cancelled in its queue) never ran, and its slot has a run of its own since
    // (fired again, or backfilled): a retry would do that slot's work a second time.
    const slotRun = await slotTakenSince(tx, run.id);
    if (slotRun) {
      throw new DomainError('conflict', `run ${runId} was cancelled before it started, and its slot has run ${slotRun.id} (${slotRun.status}) of its own: retry that run instead`, undefined, {
        slotRunId: slotRun.id,
      });
    }
    if (earlier) {
      throw new DomainError('conflict', `run ${runId} was already retried as run ${earlier.id} (${earlier.status}); retry that run instead`, undefined, {
        retryRunId: earlier.id,
      });
    }
    await opts.authorize?.(tx, { jobId: run.jobId, params: run.params });
    const { run: created } = await triggerRun(tx, {
      jobId: run.jobId, trigger: 'retry', triggeredBy: actor, scheduledFor: now, payload: run.params ?? {}, parentRunId: run.id,
    }, now);
    return created;
  });
}
