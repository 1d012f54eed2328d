import type { Db, Prisma } from '../db.ts';
import { endAttempt } from './complete-task.ts';
import { isTransactionClient, withEngineTransaction } from './pg.ts';
import { selectExpiredLeases } from './sql/select-expired-leases.ts';

export interface ReclaimedTask {
  taskId: string;
  nodeId: string;
  attempt: number;
  /** pending: retry scheduled; dead: retries used up */
  status: 'pending' | 'dead' | 'success';
  runStatus?: string;
}

/**
 * The reaper (docs/design.md §4; docs/engine-cases.md cases 3 and 4): every running task whose
 * lease ended before `now` is treated as a failed attempt of its worker —
 * running -> failed with 'lease expired: worker <node> presumed dead', then
 * retry (pending, attempt + 1, backoff) or dead, with DAG propagation and run
 * completion exactly as in completeTask. Each task is reclaimed in its own
 * transaction with the compare-and-set of completion plus `lease_until < now`,
 * so a heartbeat that extended the lease meanwhile, or a second reaper, wins
 * cleanly. A later completion from the old worker is refused (attempt moved on).
 * @param input.limit max tasks per call (oldest leases first)
 */
export async function reclaimExpiredLeases(db: Db, input: { limit: number }, now: Date = new Date()): Promise<ReclaimedTask[]> {
  const expired = await selectExpiredLeases(db as Prisma.TransactionClient, { limit: input.limit }, now);
  const out: ReclaimedTask[] = [];
  const callerTx = isTransactionClient(db);
  for (const e of expired) {
    const message = `lease expired: worker ${e.lockedBy} presumed dead`;
    const r = await withEngineTransaction(db, (tx, attempt) =>
      endAttempt(tx, {
        taskId: e.id, attempt: e.attempt, nodeId: e.lockedBy, outcome: 'failed', output: undefined,
        error: message, exitCode: null, message, leaseExpiredBefore: now, jobFirst: callerTx || attempt > 1,
      }, now),
    );
    if (r.applied && r.task) {
      out.push({ taskId: e.id, nodeId: e.lockedBy, attempt: e.attempt, status: r.task.status, ...(r.runStatus ? { runStatus: r.runStatus } : {}) });
    }
  }
  return out;
}
