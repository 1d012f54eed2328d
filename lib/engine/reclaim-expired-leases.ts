import type { Db, Prisma } from '../db.ts';
import { endAttempt } from './complete-task.ts';
import { isTransactionClient, withEngineTransaction } from './pg.ts';
import { releaseTasks } from './release-tasks.ts';
import { selectExpiredLeases } from './sql/select-expired-leases.ts';

export interface ReclaimedTask {
  taskId: string;
  nodeId: string;
  attempt: number;
  handler: string;
  /** pending: retry scheduled; dead: retries used up */
  status: 'pending' | 'dead' | 'success';
  /** the task was held, its start not recorded: handed back on the same attempt, no attempt failed */
  handedBack?: boolean;
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
 *
 * A task its worker held whose start was not recorded (tasks.held: claimed ahead or prefetched;
 * almost always one whose handler never ran; docs/on-time.md "Prefetch") is handed back to
 * pending on the same attempt instead (release-tasks.ts, `reaped`), at most
 * MAX_UNSTARTED_HAND_BACKS times per attempt, and is claimable again at once.
 * @param input.limit max tasks per call (oldest leases first)
 */
export async function reclaimExpiredLeases(db: Db, input: { limit: number }, now: Date = new Date()): Promise<ReclaimedTask[]> {
  const expired = await selectExpiredLeases(db as Prisma.TransactionClient, { limit: input.limit }, now);
  const out: ReclaimedTask[] = [];
  const callerTx = isTransactionClient(db);
  for (const e of expired) {
    if (e.held) {
      const n = await releaseTasks(db, {
        nodeId: e.lockedBy, tasks: [{ id: e.id, attempt: e.attempt, scheduledFor: e.scheduledFor }], reason: 'lease expired', reaped: true,
      }, now);
      if (n > 0) {
        out.push({ taskId: e.id, nodeId: e.lockedBy, attempt: e.attempt, handler: e.handler, status: 'pending', handedBack: true });
        continue;
      }
      // its start was recorded meanwhile: an attempt that ran, reclaimed below like any other
    }
    const message = `lease expired: worker ${e.lockedBy} presumed dead`;
    const r = await withEngineTransaction(db, (tx, attempt) =>
      endAttempt(tx, {
        taskId: e.id, attempt: e.attempt, nodeId: e.lockedBy, outcome: 'failed', output: undefined,
        error: message, exitCode: null, message, leaseExpiredBefore: now, jobFirst: callerTx || attempt > 1,
      }, now),
    );
    if (r.applied && r.task) {
      out.push({ taskId: e.id, nodeId: e.lockedBy, attempt: e.attempt, handler: e.handler, status: r.task.status, ...(r.runStatus ? { runStatus: r.runStatus } : {}) });
    }
  }
  return out;
}
