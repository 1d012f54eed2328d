import type { Db } from '../db.ts';

/**
 * Deletes idempotency keys older than `olderThanHours` (default 24, docs/design.md §3) in batches of
 * `batchSize` rows per statement (each statement is its own short transaction).
 * Index: idempotency_keys_created_idx (created_at).
 * @returns the number of keys deleted.
 */
export async function deleteExpiredIdempotencyKeys(
  db: Db,
  opts: { olderThanHours?: number; batchSize?: number; maxBatches?: number } = {},
  now: Date = new Date(),
): Promise<{ deleted: number; cutoff: string }> {
  const cutoff = new Date(now.getTime() - (opts.olderThanHours ?? 24) * 3_600_000);
  const batchSize = opts.batchSize ?? 5000;
  let deleted = 0;
  for (let i = 0; i < (opts.maxBatches ?? 100); i++) {
    const n = await db.$executeRawUnsafe(
      // a key is unique per principal only: another principal's fresh row may share it
      `DELETE FROM idempotency_keys WHERE (created_by, key) IN (
         SELECT created_by, key FROM idempotency_keys WHERE created_at < $1::timestamptz ORDER BY created_at LIMIT $2::int)`,
      cutoff, batchSize,
    );
    deleted += n;
    if (n < batchSize) break;
  }
  return { deleted, cutoff: cutoff.toISOString() };
}
