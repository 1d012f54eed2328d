import type { EngineDb, SqlClient } from '../db.ts';
import { isTransactionClient, pgConstraint, pgErrorCode } from './pg.ts';
import { claimTasksSql, type ClaimParams } from './sql/claim-tasks.ts';
import type { ClaimedTask, ClaimInput } from './types.ts';

/** The unique key that holds resource-key exclusion: one running_resources row per running key. */
const RESOURCE_CONSTRAINT = 'running_resources_pkey';

/**
 * Claims up to `limit` ready tasks for one worker node: pending -> running with
 * locked_by = nodeId, lease_until = now + leaseSeconds, started_at = now, one
 * task_logs row each, and the run pending -> running on its first task
 * (docs/design.md §4 "claim"; the SQL and why it locks this way: sql/claim-tasks.ts).
 * Routing (group, labels, strategy nodes / consistent_hash) and resource-key
 * exclusion are enforced in SQL. Tasks in backoff (schedule_at > now) wait, unless due within
 * `aheadMs` (a claim ahead: started_at = schedule_at, the worker holds the task until then).
 *
 * A race on a resource key between two claimers surfaces as a unique violation
 * of running_resources_pkey (the row the tasks_running_resource trigger writes when
 * a keyed task starts, prisma/migrations/20261203000000_history_partitions), or as a
 * deadlock when two claims start tasks of two keys in opposite orders; the
 * claim is then retried (new snapshot, the key is now seen running and skipped),
 * at most twice, and a last attempt
 * leaves resource-keyed tasks for the next poll. Inside a caller's transaction
 * the retries use a savepoint.
 * @returns the claimed tasks, highest priority first (may be fewer than `limit`).
 */
export async function claimTasks(db: EngineDb, input: ClaimInput, now: Date = new Date()): Promise<ClaimedTask[]> {
  const fallbackHandlers = input.fallbackHandlers ?? [];
  if (input.limit < 1 || input.handlers.length + fallbackHandlers.length === 0) return [];
  const base: Omit<ClaimParams, 'allowResourceKeys'> = {
    nodeId: input.nodeId,
    handlers: input.handlers,
    group: input.group,
    labels: input.labels ?? {},
    limit: Math.floor(input.limit),
    leaseSeconds: input.leaseSeconds,
    nodeStaleSeconds: input.nodeStaleSeconds ?? 30,
    fallbackHandlers,
    aheadMs: Math.max(0, input.aheadMs ?? 0),
    startNow: Math.max(0, Math.floor(input.startNow ?? input.limit)),
  };
  const inTx = isTransactionClient(db);
  for (let attempt = 1; ; attempt++) {
    const allowResourceKeys = attempt <= 3;
    try {
      if (!inTx) return await claimTasksSql(db, { ...base, allowResourceKeys }, now);
      const tx: SqlClient = db;
      await tx.$executeRawUnsafe('SAVEPOINT tickflow_claim');
      try {
        const rows = await claimTasksSql(tx, { ...base, allowResourceKeys }, now);
        await tx.$executeRawUnsafe('RELEASE SAVEPOINT tickflow_claim');
        return rows;
      } catch (error) {
        await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT tickflow_claim');
        throw error;
      }
    } catch (error) {
      const resourceRace = pgErrorCode(error) === '23505' && (pgConstraint(error) ?? RESOURCE_CONSTRAINT) === RESOURCE_CONSTRAINT;
      // Two claims that start tasks of two keys each, in opposite orders, wait on each other's
      // running_resources rows: PostgreSQL aborts one with a deadlock instead of a unique violation.
      // The claim waits on nothing else (tasks and runs are taken SKIP LOCKED), so it is the same race.
      const resourceDeadlock = pgErrorCode(error) === '40P01';
      if ((resourceRace || resourceDeadlock) && allowResourceKeys) continue;
      throw error;
    }
  }
}
