import { NextResponse, type NextRequest } from 'next/server';
import { allowedMethods } from './lib/api/allowed-methods.ts';

/**
 * Runs before /api/v1 routes (Next 16 proxy, Node runtime). A method the route does
 * not answer would otherwise get Next's empty 405 without an `Allow` header; here it
 * gets the API's JSON error and the header (RFC 9110 §15.5.6). Everything else passes.
 */
export function proxy(req: NextRequest): NextResponse {
  const allowed = allowedMethods(req.nextUrl.pathname);
  if (allowed && !allowed.includes(req.method)) {
    return NextResponse.json(
      { error: { code: 'method_not_allowed', message: `${req.method} is not allowed on ${req.nextUrl.pathname}; allowed: ${allowed.join(', ')}` } },
      { status: 405, headers: { allow: allowed.join(', ') } },
    );
  }
  return NextResponse.next();
}

export const config = { matcher: ['/api/v1/:path*'] };
