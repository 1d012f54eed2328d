import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { UUID_RE, withEngineTransaction } from './pg.ts';
import { finishRunIfDone } from './settle.ts';
import { cancelRunTasks } from './sql/cancel-run-tasks.ts';
import { lockJobRow } from './sql/lock-job-row.ts';
import { lockRun } from './sql/lock-run.ts';
import { setRunError } from './sql/set-run-error.ts';
import type { Run } from './types.ts';

/**
 * Operator cancel (docs/design.md §4 `pending | running -> cancelled`): every
 * pending and running task of the run -> cancelled (running ones: their
 * workers' completions are refused by the compare-and-set, and NOTIFY
 * tickflow_cancel carries their ids so workers abort), the run -> cancelled
 * with error 'cancelled by <actor>' (the job's consecutive_failures unchanged), and a queued serial_execution run of the
 * job is released.
 * @throws DomainError('not_found') for an unknown run, ('conflict') when the run is already final.
 */
export async function cancelRun(db: Db, runId: string, actor: string, now: Date = new Date()): Promise<Run> {
  if (!UUID_RE.test(runId)) throw new DomainError('not_found', `run ${runId} not found`);
  return withEngineTransaction(db, async (tx) => {
    // Lock order (lock-order.ts): job, run, then the run's tasks; ending the run books the job.
    await lockJobRow(tx, { runId });
    const run = await lockRun(tx, { runId });
    if (!run) throw new DomainError('not_found', `run ${runId} not found`);
    if (run.status !== 'pending' && run.status !== 'running') {
      throw new DomainError('conflict', `run ${runId} is already ${run.status}`, undefined, { status: run.status });
    }
    await setRunError(tx, { runId, error: `cancelled by ${actor}` }, now);
    await cancelRunTasks(tx, { runIds: [runId], message: `cancelled by ${actor}`, actor }, now);
    await finishRunIfDone(tx, runId, now);
    return (await tx.run.findUniqueOrThrow({ where: { id: runId } })) as Run;
  });
}
