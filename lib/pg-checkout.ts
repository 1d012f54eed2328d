/**
 * Checking a client out of a node-postgres pool without letting its connection's loss crash
 * the process.
 *
 * pg-pool listens for an idle client's 'error' event (and re-emits it on the pool), but removes
 * that listener while the client is checked out. A connection that ends under a checked-out
 * client — pg_terminate_backend by another session or a DBA, a server restart or failover, a
 * socket destroyed on purpose — makes node-postgres emit 'error' on the client ("Connection
 * terminated unexpectedly", or the server's FATAL 57P01): with no listener, Node throws it as an
 * uncaught exception and the whole process exits. Every `pool.connect()` in the worker and the
 * code it runs goes through checkOut (or listens itself, as lib/sql-pool.ts's transactions do),
 * and `pool.query()` is safe (pg-pool listens during it).
 */
import type pg from 'pg';

/** SQLSTATEs of a server ending the session (admin_shutdown, crash_shutdown, cannot_connect_now). */
const TERMINATED_CODES = new Set(['57P01', '57P02', '57P03']);

/**
 * True when `err` says the connection itself is gone (the server ended the session, or the
 * socket closed), as opposed to a statement's error on a connection that still works.
 */
export function isConnectionLost(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e.code === 'string' && TERMINATED_CODES.has(e.code)) return true;
  return typeof e.message === 'string' && /^Connection terminated|Client has encountered a connection error|connection (is )?closed/i.test(e.message);
}

/** A client checked out by checkOut. */
export interface CheckedOut {
  client: pg.PoolClient;
  /** the error the connection emitted while checked out (it is then unusable), else null */
  readonly lost: Error | null;
  /**
   * Gives the client back: to the pool when it is healthy, else destroyed (never reused).
   * @param broken an error, or true, to destroy it anyway (its state is unknown)
   */
  release(broken?: Error | boolean): void;
}

/**
 * `pool.connect()` with an 'error' listener on the client for as long as it is checked out.
 * The listener records the error (see `lost`); the statement in flight rejects with it too.
 * @param pool the pool to check a client out of
 * @param onLost called once with the first error the connection emits while checked out
 */
export async function checkOut(pool: pg.Pool, onLost?: (err: Error) => void): Promise<CheckedOut> {
  const client = await pool.connect();
  let lost: Error | null = null;
  let released = false;
  const onError = (err: Error) => {
    if (lost) return;
    lost = err;
    onLost?.(err);
  };
  client.on('error', onError);
  return {
    client,
    get lost() {
      return lost;
    },
    release(broken?: Error | boolean) {
      if (released) return;
      released = true;
      client.off('error', onError);
      const err = lost ?? (broken instanceof Error ? broken : broken ? new Error('connection in an unknown state') : undefined);
      client.release(err);
    },
  };
}
