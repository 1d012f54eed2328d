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

type SearchParams = Record<string, string | string[] | undefined>;

/**
 * A query string's values as console pages read them: a key given more than once (`?q=a&q=b`, which
 * Next hands a page as an array) counts by its first value, as `URLSearchParams.get` reads it, so no
 * page meets an array where it expects text (a page's own filters then judge that value).
 */
export function firstSearchValues(sp: SearchParams): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(sp).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
}

/** `props` with its `searchParams` (a page's; a layout has none) read by firstSearchValues. */
function withFirstSearchValues<P>(props: P): P {
  const sp = (props as { searchParams?: unknown } | null)?.searchParams;
  if (!(sp instanceof Promise)) return props;
  return { ...props, searchParams: (sp as Promise<SearchParams>).then(firstSearchValues) };
}

/**
 * Wraps a console page or layout component so that a database outage met while it loads its data is
 * the outage page with a 503 (outageOr) instead of a 500. Every page of app/(console), its layout and the
 * sign-in page are wrapped. A page's `searchParams` reach it with one value per key (firstSearchValues).
 */
export function consolePage<P>(render: (props: P) => Promise<React.ReactNode>): (props: P) => Promise<React.ReactNode> {
  const page = async (props: P) => {
    try {
      return await render(withFirstSearchValues(props));
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
