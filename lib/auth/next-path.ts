/**
 * Where to send the browser after sign-in (docs/security.md "Login"): only a path
 * on this console. The value is resolved the way a browser would resolve it
 * (WHATWG URL: backslashes count as slashes, tabs and newlines are dropped, so
 * `/\evil.example`, `/%09/evil.example` and `//evil.example` all leave the site)
 * against a placeholder origin, and refused unless the result stays on it.
 */
const BASE = 'http://tickflow.invalid';

/**
 * @param next a raw `next` value (query string or form field), possibly null
 * @returns the normalised same-origin path (`/jobs?x=1#y`), or '/' for anything else
 */
export function safeNextPath(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.length > 2000) return '/';
  // control characters and backslashes have no business in a console path
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  const path = url.pathname + url.search + url.hash;
  return path.startsWith('//') ? '/' : path;
}

/**
 * The request header through which proxy.ts hands a console page the path the browser asked for
 * (a layout cannot read its own URL): set on every page request, replacing any value the client sent.
 */
export const REQUESTED_PATH_HEADER = 'x-tickflow-requested-path';

/**
 * The path and query of a page request as the sign-in page should return to it: Next's own `_rsc`
 * cache-busting parameter (a client-side navigation's) left out.
 * @param url the request's URL (proxy.ts: `req.nextUrl`)
 */
export function requestedPath(url: URL): string {
  const search = new URLSearchParams(url.search);
  search.delete('_rsc');
  const query = search.toString();
  return url.pathname + (query ? `?${query}` : '');
}

/**
 * The sign-in page for a visitor without a session who asked for `requested` (the value of
 * REQUESTED_PATH_HEADER, null when absent): `/login?next=<that path>`, so that signing in lands on
 * the page the link pointed at (an alarm's link, a bookmark, a session that expired); plain
 * `/login` for the overview or anything safeNextPath refuses.
 */
export function loginPathFor(requested: string | null): string {
  const next = safeNextPath(requested);
  return next === '/' ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}
