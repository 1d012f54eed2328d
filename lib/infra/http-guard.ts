/**
 * Requests the console's HTTP server answers before Next.js sees them, because
 * Next answers them with a 500:
 * - a method outside GET HEAD POST PUT PATCH DELETE OPTIONS (TRACE, TRACK,
 *   PROPFIND…): Next builds a fetch `Request` for the proxy and route handlers,
 *   and the WHATWG fetch standard forbids TRACE and TRACK there, so it throws.
 *   Answered 405 with an `Allow` header (RFC 9110 §15.5.6);
 * - a path whose percent-encoding is not UTF-8 (`/jobs/%ff`): Next's param
 *   decoding throws. Answered 400 (RFC 3986 §2.1, WHATWG URL percent-decode);
 * - a query string whose names or values are not UTF-8 once percent-decoded
 *   (`?q=%ED%A0%80`): Next turns those bytes into U+FFFD before a route or page
 *   sees them, so a search would match something not asked for. Answered 400
 *   naming each parameter (lib/api/validation.ts queryEncodingErrors); so is a parameter named
 *   `__proto__`, which Next drops from the query before a route or page could refuse it.
 * /api/v1 paths get the API's JSON error shape, other paths plain text.
 * Installed by instrumentation.ts in the console process.
 */
import { allowedMethods } from '../api/allowed-methods.ts';
import { queryEncodingErrors, UNKNOWN_QUERY_PARAMETER } from '../api/validation.ts';
import { addRequestHook } from './request-hooks.ts';

export const STANDARD_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'];

/** What the guard answers instead of Next: status, headers and body text. */
export type GuardAnswer = { status: number; headers: Record<string, string>; body: string };

/** The raw path and query parts of a request target (`/a/b?x#f` -> `/a/b`, `x`; an absolute-form target keeps only its path and query). */
function rawPartsOf(target: string): { path: string; query: string } {
  let p = target;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) p = p.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const hash = p.indexOf('#');
  if (hash !== -1) p = p.slice(0, hash);
  const q = p.indexOf('?');
  return q === -1 ? { path: p, query: '' } : { path: p.slice(0, q), query: p.slice(q + 1) };
}

/** True when every `%` escape of `path` is well formed and the bytes decode as UTF-8. */
export function hasValidPercentEncoding(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The answer for a request Next cannot handle, or null to pass it on.
 * @param method the request method as received (upper case for standard ones)
 * @param target the request target (`/api/v1/jobs/%ff?x=1`)
 */
export function guardRequest(method: string, target: string): GuardAnswer | null {
  const { path, query } = rawPartsOf(target);
  const api = path === '/api/v1' || path.startsWith('/api/v1/');
  const answer = (status: number, code: string, message: string, headers: Record<string, string> = {}, fields?: Record<string, string>): GuardAnswer =>
    api
      ? {
          status,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
          body: JSON.stringify({ error: { code, message, ...(code === 'validation' ? { fields: fields ?? { _path: message } } : {}) } }),
        }
      : { status, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', ...headers }, body: `${message}\n` };
  if (!STANDARD_METHODS.includes(method)) {
    // JSON.stringify below escapes anything odd; the method token itself is ASCII (RFC 9110 §9.1).
    const allow = (api && hasValidPercentEncoding(path) ? allowedMethods(path) : null) ?? STANDARD_METHODS;
    return answer(405, 'method_not_allowed', `${method.slice(0, 20)} is not allowed; allowed: ${allow.join(', ')}`, { allow: allow.join(', ') });
  }
  if (!hasValidPercentEncoding(path)) {
    return answer(400, 'validation', 'The URL path has a malformed percent-encoding (each %XX must form UTF-8)');
  }
  const queryErrors = query ? queryEncodingErrors(query) : {};
  const names = Object.keys(queryErrors);
  if (names.length) {
    const message = names.every((n) => queryErrors[n] === UNKNOWN_QUERY_PARAMETER)
      ? `Unknown query parameter ${names.join(', ')}`
      : `Query parameter ${names.join(', ')}: not valid UTF-8 once percent-decoded (each %XX sequence must form UTF-8)`;
    return answer(400, 'validation', message, {}, { ...queryErrors });
  }
  return null;
}

let installed = false;

/** Makes every http.Server of this process answer guardRequest's cases itself (lib/infra/request-hooks.ts). Idempotent. */
export function installHttpGuard(): void {
  if (installed) return;
  installed = true;
  addRequestHook((req, res, next) => {
    const a = guardRequest(req.method ?? '', req.url ?? '/');
    if (!a) return next();
    res.writeHead(a.status, { ...a.headers, 'content-length': Buffer.byteLength(a.body) });
    res.end(req.method === 'HEAD' ? undefined : a.body);
    req.resume();
    return true;
  });
}
