import type { Db, Prisma } from '../db.ts';
import { extendLeasesSql } from './sql/extend-leases.ts';
import type { ExtendLeasesInput, ExtendLeasesResult } from './types.ts';

/**
 * Heartbeat for running tasks (docs/design.md §4 lease; docs/engine-cases.md case 3: a long
 * task within its timeout keeps its lease and is never reclaimed):
 * lease_until = now + leaseSeconds for the given tasks still running under
 * `nodeId`. Tasks no longer held (completed, reclaimed, cancelled) come back in
 * `lost`: the worker should abort them, their results would be refused anyway.
 */
export async function extendLeases(db: Db, input: ExtendLeasesInput, now: Date = new Date()): Promise<ExtendLeasesResult> {
  if (input.taskIds.length === 0) return { extended: [], lost: [] };
  const extended = await extendLeasesSql(db as Prisma.TransactionClient, input, now);
  const held = new Set(extended);
  return { extended, lost: input.taskIds.filter((id) => !held.has(id)) };
}
