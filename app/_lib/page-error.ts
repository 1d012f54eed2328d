import { isDomainError } from '@/lib/errors';
import { log } from '@/lib/log';

const logger = log('console-page');

/**
 * Text a console page may show for an error while loading: a DomainError's own
 * message (bad input, not found, ...); anything else — a database or driver
 * error whose text is not for users — is logged and replaced by `fallback`.
 */
export function pageErrorMessage(e: unknown, fallback: string): string {
  if (isDomainError(e)) return e.message;
  logger.error({ err: e }, fallback);
  return `${fallback}. The error was logged on the server.`;
}
