import { isDomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { markDatabaseUnreachable } from '@/lib/infra/database-probe';
import { DatabaseUnavailableError, isDatabaseUnavailable } from '@/lib/infra/database-unavailable';
import { noteRequestMetOutage } from '@/lib/infra/outage-status';

const logger = log('console-page');

/**
 * What console code rethrows for an error met while rendering: a database outage (isDatabaseUnavailable)
 * becomes a DatabaseUnavailableError — the next page answers 503 at once (markDatabaseUnreachable), this
 * one goes out as the 503 page rather than a 500 (lib/infra/outage-status.ts), and a move inside the
 * console shows the outage by the error's digest (components/error-boundary-view.tsx); anything else is
 * returned as is.
 */
export function outageOr(e: unknown): unknown {
  if (!isDatabaseUnavailable(e)) return e;
  markDatabaseUnreachable();
  noteRequestMetOutage();
  return e instanceof DatabaseUnavailableError ? e : new DatabaseUnavailableError(e);
}

/**
 * Wraps a console page or layout component so that a database outage met while it loads its data is
 * the outage page with a 503 (outageOr) instead of a 500. Every page of app/(console), its layout and the
 * sign-in page are wrapped.
 */
export function consolePage<P>(render: (props: P) => Promise<React.ReactNode>): (props: P) => Promise<React.ReactNode> {
  const page = async (props: P) => {
    try {
      return await render(props);
    } catch (e) {
      throw outageOr(e);
    }
  };
  // React and Next name the component after the wrapped one (stack traces, the dev overlay)
  Object.defineProperty(page, 'name', { value: render.name || 'ConsolePage' });
  return page;
}

/**
 * Text a console page may show for an error while loading: a DomainError's own
 * message (bad input, not found, ...); anything else — a database or driver
 * error whose text is not for users — is logged and replaced by `fallback`.
 * A database outage is not shown inline: it is rethrown as the outage page (outageOr).
 */
export function pageErrorMessage(e: unknown, fallback: string): string {
  const outage = outageOr(e);
  if (outage instanceof DatabaseUnavailableError) throw outage;
  if (isDomainError(e)) return e.message;
  logger.error({ err: e }, fallback);
  return `${fallback}. The error was logged on the server.`;
}
