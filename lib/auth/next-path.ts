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
