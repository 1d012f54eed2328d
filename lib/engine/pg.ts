/**
 * Small helpers around Prisma raw SQL shared by the engine's operations.
 * Not part of the public API.
 */
import { inTransaction, type Db, type Prisma } from '../db.ts';

/** The SQLSTATE of a PostgreSQL error as surfaced by Prisma's pg adapter (P2010 -> meta.driverAdapterError.cause). */
export function pgErrorCode(error: unknown): string | undefined {
  const e = error as { code?: string; meta?: { driverAdapterError?: { cause?: { originalCode?: string; code?: string } } }; cause?: unknown };
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause?.originalCode) return cause.originalCode;
  if (cause?.code && /^[0-9A-Z]{5}$/.test(cause.code)) return cause.code;
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

/** The constraint/index name of a unique violation, when the adapter reports it. */
export function pgConstraint(error: unknown): string | undefined {
  const e = error as { meta?: { driverAdapterError?: { cause?: { constraint?: { index?: string }; originalMessage?: string } } } };
  const cause = e?.meta?.driverAdapterError?.cause;
  return cause?.constraint?.index ?? /constraint "([^"]+)"/.exec(cause?.originalMessage ?? '')?.[1];
}

export function isTransactionClient(db: Db): boolean {
  return !('$transaction' in db && typeof (db as { $transaction?: unknown }).$transaction === 'function');
}

/**
 * Runs `fn` in a transaction and, when this call owns the transaction, retries
 * it on deadlock (40P01) or serialization failure (40001). Lock order in the
 * engine is task -> run -> job for completions but job -> run -> task for
 * triggers (cover_early), so a rare deadlock between the two is possible and
 * PostgreSQL resolves it by aborting one; replaying the aborted one is safe
 * because every step is a compare-and-set. When `db` is already a transaction
 * the caller owns the retry.
 */
export async function withEngineTransaction<T>(db: Db, fn: (tx: Prisma.TransactionClient) => Promise<T>, attempts = 4): Promise<T> {
  if (isTransactionClient(db)) return fn(db as Prisma.TransactionClient);
  for (let i = 1; ; i++) {
    try {
      return await inTransaction(db, fn);
    } catch (error) {
      const code = pgErrorCode(error);
      if (i < attempts && (code === '40P01' || code === '40001')) continue;
      throw error;
    }
  }
}

/**
 * Runs one autocommit statement (or anything atomic on its own), retrying it on
 * deadlock (40P01) or serialization failure (40001): an aborted statement
 * changed nothing and every engine statement is a compare-and-set, so a replay
 * is safe. `attempts` = 1 inside a caller's transaction (the caller owns retries).
 */
export async function withDeadlockRetry<T>(fn: () => Promise<T>, attempts = 4): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      const code = pgErrorCode(error);
      if (i < attempts && (code === '40P01' || code === '40001')) continue;
      throw error;
    }
  }
}

/** JSON for a `$n::jsonb` parameter (undefined -> SQL NULL). */
export function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
