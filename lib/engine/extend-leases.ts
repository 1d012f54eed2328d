import type { Db, Prisma } from '../db.ts';
import { extendLeasesSql, selectCancelledTasks } from './sql/extend-leases.ts';
import type { ExtendLeasesInput, ExtendLeasesResult } from './types.ts';

/**
 * Heartbeat for running tasks (docs/design.md §4 lease; docs/engine-cases.md case 3: a long
 * task within its timeout keeps its lease and is never reclaimed):
 * lease_until = now + leaseSeconds for the given tasks still running under
 * `nodeId`. Tasks no longer held (completed, reclaimed, cancelled) come back in
 * `lost`: the worker should abort them, their results would be refused anyway; those of them
 * that were cancelled also come back in `cancelled`, so that the attempt ends as cancelled
 * whether the heartbeat or the cancel's NOTIFY reaches the worker first.
 */
export async function extendLeases(db: Db, input: ExtendLeasesInput, now: Date = new Date()): Promise<ExtendLeasesResult> {
  if (input.taskIds.length === 0) return { extended: [], lost: [], cancelled: [] };
  const extended = await extendLeasesSql(db as Prisma.TransactionClient, input, now);
  const held = new Set(extended);
  const lost = input.taskIds.filter((id) => !held.has(id));
  // Only when some are lost: the heartbeat of a worker whose tasks all run on stays one statement.
  const cancelled = lost.length > 0 ? await selectCancelledTasks(db as Prisma.TransactionClient, lost) : [];
  return { extended, lost, cancelled };
}
