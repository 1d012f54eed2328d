import { isDomainError } from '@/lib/errors';
import { markDatabaseUnreachable } from '@/lib/infra/database-probe';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '@/lib/infra/database-unavailable';
import { log } from '@/lib/log';
import { transactionTimeoutMessage } from '@/lib/infra/transaction-timeout';
import { zodToFieldErrors } from '@/lib/api/validation';
import type { ZodError } from 'zod';

/**
 * What every console server action returns (docs/conventions.md §2): data on success, or a
 * message for people plus optional per-field messages keyed by dotted path
 * (`schedule.cron`, `payload`, `policy.timeoutSeconds`) for the form to show next to
 * each field. `code`/`detail` carry the DomainError code and detail (e.g. a 409
 * conflict's current version) for the few screens that react to them.
 */
export type ActionResult<T = null> =
  | { ok: true; data: T }
  | { ok: false; error: string; fields?: Record<string, string>; code?: string; detail?: Record<string, unknown> };

const logger = log('console-action');

/** Dotted path -> first message, from a zod error (same mapping as the REST door). */
export function zodFields(error: ZodError): Record<string, string> {
  return zodToFieldErrors(error);
}

/**
 * Maps a thrown error to a result: DomainError keeps its message, fields, code and
 * detail; a database outage (isDatabaseUnavailable) is databaseUnavailableResult, and the next
 * page answers 503 at once (markDatabaseUnreachable); a transaction that ran out of time is
 * `transaction_timeout` saying nothing was changed (lib/infra/transaction-timeout.ts); anything else is a bug, logged with its
 * stack, shown as a generic message.
 * Next's redirect()/notFound() signals are re-thrown so they still work.
 */
export function toActionError(error: unknown, what: string): ActionResult<never> {
  if (isNextSignal(error)) throw error;
  if (isDomainError(error)) {
    return { ok: false, error: error.message, fields: error.fields, code: error.code, detail: error.detail };
  }
  if (isDatabaseUnavailable(error)) {
    markDatabaseUnreachable();
    logger.warn({ err: error }, `${what}: database unavailable`);
    return databaseUnavailableResult(what);
  }
  const timedOut = transactionTimeoutMessage(error);
  if (timedOut) {
    logger.warn({ err: error }, `${what}: transaction ran out of time`);
    return { ok: false, code: 'transaction_timeout', error: `${what}: ${timedOut}` };
  }
  logger.error({ err: error }, `${what} failed`);
  return { ok: false, error: `${what} failed unexpectedly. The error was logged on the server.` };
}

/**
 * What an action answers while the database cannot be reached: nothing was done, say so and that a retry
 * will do, with code `database_unavailable` (the REST door's code for the same case, app/_lib/rest.ts).
 */
export function databaseUnavailableResult(what: string): ActionResult<never> {
  return { ok: false, code: 'database_unavailable', error: `${what}: database unavailable. ${DATABASE_UNAVAILABLE_MESSAGE}` };
}

function isNextSignal(error: unknown): boolean {
  const digest = (error as { digest?: unknown } | null)?.digest;
  return typeof digest === 'string' && (digest.startsWith('NEXT_REDIRECT') || digest.startsWith('NEXT_HTTP_ERROR_FALLBACK') || digest === 'NEXT_NOT_FOUND');
}
