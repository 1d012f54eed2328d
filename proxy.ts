import { NextResponse, type NextRequest } from 'next/server';
import { allowedMethods } from './lib/api/allowed-methods.ts';
import { actionBodyRefusal, formPostBodyRefusal, type ActionBodyRefusal } from './lib/auth/action-body.ts';
import { crossOriginActionRefusal, mayBeServerAction } from './lib/auth/action-origin.ts';
import { databaseReachable } from './lib/infra/database-probe.ts';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailablePage } from './lib/infra/database-unavailable.ts';
import { REQUESTED_PATH_HEADER, requestedPath } from './lib/auth/next-path.ts';

/**
 * Runs before /api/v1 routes and console pages (Next 16 proxy, Node runtime).
 *
 * - /api/v1: a method the route does not answer would otherwise get Next's empty 405
 *   without an `Allow` header; here it gets the API's JSON error and the header
 *   (RFC 9110 §15.5.6). (A database outage is answered by the route wrapper, app/_lib/rest.ts.)
 * - pages: while the database cannot be reached (lib/infra/database-probe.ts, cached),
 *   a 503 page saying so with Retry-After, instead of a 500 error page. A server action (a POST
 *   to a page's path with the `next-action` header) is let through: the browser expects the
 *   action's own answer, which says the database is unavailable (app/_actions/define-action.ts),
 *   and an HTML page in its place would be a generic failure there.
 * - server actions from another origin: 403 (lib/auth/action-origin.ts, Next's own CSRF rule), where
 *   Next itself would answer 500; also a form posted without the `next-action` header (before
 *   hydration), which Next may run as an action too (mayBeServerAction).
 * - pages: the path asked for, in REQUESTED_PATH_HEADER (lib/auth/next-path.ts), always this proxy's
 *   own value: a page without a session sends the browser to sign in and back to it.
 * - server actions whose body Next cannot decode (not JSON, empty, broken multipart, another content
 *   type): 400 naming the content type or the body (lib/auth/action-body.ts), where Next would answer 500;
 *   a form posted without the header, when its body is not the FormData its Content-Type names.
 */
export async function proxy(req: NextRequest): Promise<NextResponse> {
  if (req.nextUrl.pathname.startsWith('/api/')) {
    const allowed = allowedMethods(req.nextUrl.pathname);
    if (allowed && !allowed.includes(req.method)) {
      return NextResponse.json(
        { error: { code: 'method_not_allowed', message: `${req.method} is not allowed on ${req.nextUrl.pathname}; allowed: ${allowed.join(', ')}` } },
        { status: 405, headers: { allow: allowed.join(', ') } },
      );
    }
    return NextResponse.next();
  }
  if (mayBeServerAction(req.method, req.headers)) {
    const refused = crossOriginActionRefusal(req.headers);
    if (refused) return NextResponse.json({ error: { code: 'forbidden', message: refused } }, { status: 403, headers: { 'cache-control': 'no-store' } });
    // req's body is the proxy's own copy (Next buffers the original for the action handler), so reading it here
    // reads the body once more, not twice more.
    if (req.headers.has('next-action')) {
      const badBody = await actionBodyRefusal(req);
      return badBody ? bodyRefused(badBody) : NextResponse.next();
    }
    // a form posted before hydration: Next parses it as FormData before it looks for an action in it;
    // like a page, it then gets the 503 page while the database is away
    const badForm = await formPostBodyRefusal(req);
    if (badForm) return bodyRefused(badForm);
  }
  const url = process.env.DATABASE_URL;
  if (url && !(await databaseReachable(url))) return unavailablePage();
  const headers = new Headers(req.headers);
  headers.set(REQUESTED_PATH_HEADER, requestedPath(req.nextUrl));
  return NextResponse.next({ request: { headers } });
}

/** The 400 of a body Next could not decode, naming the field (`content-type` or `_body`). */
function bodyRefused(refusal: ActionBodyRefusal): NextResponse {
  return NextResponse.json(
    { error: { code: refusal.tooLarge ? 'payload_too_large' : 'validation', message: refusal.message, fields: { [refusal.field]: refusal.message } } },
    { status: refusal.tooLarge ? 413 : 400, headers: { 'cache-control': 'no-store' } },
  );
}

function unavailablePage(): NextResponse {
  return new NextResponse(databaseUnavailablePage(), {
    status: 503,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
  });
}

export const config = { matcher: ['/api/v1/:path*', '/((?!_next/|api/|metrics$|icon\\.svg$|favicon\\.ico$).*)'] };
