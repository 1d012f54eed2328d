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
 *
 * A run still open whose tasks are all final has nothing left to cancel: a worker's batch of DAG
 * completions commits its tasks' ends before the run's end (complete-task.ts settleDagBatch), and
 * a cancel can come in between. Such a run is ended here with its real outcome (settle.ts
 * finishRunIfDone: its own first error, never 'cancelled by …' over a real failure), and the
 * cancel answers as for a run that had ended before it.
 * @throws DomainError('not_found') for an unknown run, ('conflict') when the run is already final
 *   or had nothing left to cancel (detail.status: its final status)
 */
export async function cancelRun(db: Db, runId: string, actor: string, now: Date = new Date()): Promise<Run> {
  if (!UUID_RE.test(runId)) throw new DomainError('not_found', `run ${runId} not found`);
  const { run, cancelled } = await withEngineTransaction(db, async (tx) => {
    // Lock order (lock-order.ts): job, run, then the run's tasks; ending the run books the job.
    await lockJobRow(tx, { runId });
    const locked = await lockRun(tx, { runId });
    if (!locked) throw new DomainError('not_found', `run ${runId} not found`);
    if (locked.status !== 'pending' && locked.status !== 'running') {
      throw new DomainError('conflict', `run ${runId} is already ${locked.status}`, undefined, { status: locked.status });
    }
    const { cancelled } = await cancelRunTasks(tx, { runIds: [runId], message: `cancelled by ${actor}`, actor }, now);
    // the run's error names the cancel only when the cancel ended something (finalise-run.ts keeps it)
    if (cancelled > 0) await setRunError(tx, { runId, error: `cancelled by ${actor}` }, now);
    await finishRunIfDone(tx, runId, now);
    return { run: (await tx.run.findUniqueOrThrow({ where: { id: runId } })) as Run, cancelled };
  });
  if (cancelled === 0 && run.status !== 'pending' && run.status !== 'running') {
    throw new DomainError('conflict', `run ${runId} is already ${run.status}: its tasks had all ended`, undefined, { status: run.status });
  }
  return run;
}
