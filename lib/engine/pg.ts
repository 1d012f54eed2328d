/**
 * Small helpers around Prisma raw SQL shared by the engine's operations.
 * Not part of the public API.
 */
import { inTransaction, type Db, type EngineDb, type Prisma, type PrismaClient, type SqlClient } from '../db.ts';
import { isSqlPool, type SqlPool } from '../sql-pool.ts';
import { pgErrorCode } from '../pg-error-code.ts';
import { MAX_ENGINE_ATTEMPTS, REPLAYABLE_SQLSTATES, replayDelayMs } from './lock-order.ts';

export { pgErrorCode };

/** The constraint/index name of a unique violation, as node-postgres or Prisma's adapter reports it. */
export function pgConstraint(error: unknown): string | undefined {
  const e = error as { constraint?: string; meta?: { driverAdapterError?: { cause?: { constraint?: { index?: string }; originalMessage?: string } } } };
  if (typeof e?.constraint === 'string') return e.constraint;
  const cause = e?.meta?.driverAdapterError?.cause;
  return cause?.constraint?.index ?? /constraint "([^"]+)"/.exec(cause?.originalMessage ?? '')?.[1];
}

/**
 * A client of its own, not an interactive-transaction client: only it has `$disconnect`
 * (Prisma 7's transaction clients also have `$transaction`, for nested savepoints).
 */
export function isRootClient(db: EngineDb | SqlClient): db is PrismaClient | SqlPool {
  return typeof (db as { $disconnect?: unknown }).$disconnect === 'function';
}

/**
 * An interactive-transaction client handed in by a caller: engine operations then join that
 * transaction and leave replays to its owner (withEngineTransaction). Decided by isRootClient,
 * not by `$transaction`, which Prisma 7's transaction clients have too.
 */
export function isTransactionClient(db: EngineDb | SqlClient): boolean {
  return !isRootClient(db);
}

/**
 * Runs `fn` in a transaction and, when this call owns the transaction, replays
 * it after a rollback for a lock conflict: 55P03 (a NOWAIT lock taken against
 * the lock order, lock-order.ts), 40P01 (deadlock) or 40001 (serialization
 * failure) — at most `attempts` times in all, with a jittered pause between
 * attempts (replayDelayMs). Replaying is safe because every engine write is a
 * compare-and-set. `fn` gets the attempt number (1-based) so a replay can take
 * its locks in the strict order (lock-order.ts JOB_FIRST). When `db` is already
 * a transaction, `fn` runs once in it (attempt 1) and the caller owns the replay.
 * @throws the last error when it is not replayable or the attempts are used up
 */
export async function withEngineTransaction<T>(db: Db, fn: (tx: Prisma.TransactionClient, attempt: number) => Promise<T>, attempts?: number): Promise<T>;
export async function withEngineTransaction<T>(db: EngineDb | SqlClient, fn: (tx: SqlClient, attempt: number) => Promise<T>, attempts?: number): Promise<T>;
export async function withEngineTransaction<T>(
  db: EngineDb | SqlClient,
  fn: (tx: Prisma.TransactionClient & SqlClient, attempt: number) => Promise<T>,
  attempts = MAX_ENGINE_ATTEMPTS,
): Promise<T> {
  type Tx = Prisma.TransactionClient & SqlClient;
  if (isTransactionClient(db)) return fn(db as Tx, 1);
  for (let i = 1; ; i++) {
    try {
      // replay: false — this loop is the replay, with the attempt number fn may order its locks by
      return await (isSqlPool(db) ? db.$transaction((tx) => fn(tx as Tx, i)) : inTransaction(db as Db, (tx) => fn(tx as Tx, i), { replay: false }));
    } catch (error) {
      const code = pgErrorCode(error);
      if (i >= attempts || !code || !REPLAYABLE_SQLSTATES.has(code)) throw error;
      await sleep(replayDelayMs(i));
    }
  }
}

/**
 * Runs one autocommit statement (or anything atomic on its own), replaying it
 * after 55P03 / 40P01 / 40001 like withEngineTransaction: an aborted statement
 * changed nothing and every engine statement is a compare-and-set, so a replay
 * is safe. `attempts` = 1 inside a caller's transaction (the caller owns replays).
 */
export async function withDeadlockRetry<T>(fn: () => Promise<T>, attempts = MAX_ENGINE_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (error) {
      const code = pgErrorCode(error);
      if (i >= attempts || !code || !REPLAYABLE_SQLSTATES.has(code)) throw error;
      await sleep(replayDelayMs(i));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** JSON for a `$n::jsonb` parameter (undefined -> SQL NULL). */
export function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
