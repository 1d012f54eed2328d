/**
 * Whether an error means "an interactive transaction ran out of time" (Prisma P2028): it outlived
 * its timeout (lib/db.ts inTransaction; Prisma rolls it back, so nothing it did was written), or
 * it could not start within maxWait (every connection busy). Neither is a bug nor bad input, so
 * the doors answer it as such (app/_lib/rest.ts: 503 `transaction_timeout`; the console's actions
 * the same code, app/_actions/result.ts), never as a 500 `internal`. Each operation's own work
 * is bounded so that its documented maximum fits its transaction with a wide margin
 * (docs/operations.md "Limits and long transactions"); this is the answer when a database too slow or too busy
 * still makes one run out.
 */
import { findInErrorChain } from './error-chain.ts';

/** What a client is told when a transaction ran out of time (REST message, console error). */
export const TRANSACTION_TIMEOUT_MESSAGE =
  'The change took too long and was rolled back: nothing was changed. Retry, or send fewer items at once.';

/** What a client is told when a transaction could not even start in time (every connection busy). */
export const TRANSACTION_NOT_STARTED_MESSAGE = 'The server was too busy to start the change: nothing was changed. Retry in a moment.';

/**
 * The message for `error` when it (or anything it wraps) is a transaction that ran out of time
 * (Prisma P2028: expired, or not started within maxWait), else null.
 */
export function transactionTimeoutMessage(error: unknown): string | null {
  return findInErrorChain(error, (x) => {
    if (x.code !== 'P2028') return null;
    const started = x.meta?.timeTaken !== undefined || (typeof x.message === 'string' && /expired transaction/i.test(x.message));
    return started ? TRANSACTION_TIMEOUT_MESSAGE : TRANSACTION_NOT_STARTED_MESSAGE;
  });
}
