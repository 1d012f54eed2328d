import { jsonResponse } from '@/app/_lib/rest';

export const dynamic = 'force-dynamic';

/**
 * Any /api/v1 path no route file matches (and /api/v1 itself): the API's JSON error format with 404
 * (instead of Next's HTML not-found page), for every method.
 */
async function notFound(req: Request): Promise<Response> {
  const { pathname } = new URL(req.url);
  return jsonResponse(404, { error: { code: 'not_found', message: `No API route ${req.method} ${pathname}; see /api/v1/openapi.json` } });
}

export const GET = notFound;
export const HEAD = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const OPTIONS = notFound;
