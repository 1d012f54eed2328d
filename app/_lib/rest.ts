/**
 * The REST door's one wrapper for route handlers (DESIGN.md §5): auth (bearer
 * token or the console session cookie), role check, zod parsing of params /
 * query / body, DomainError -> `{ "error": { "code", "message", "fields"?, "detail"? } }`
 * with its status, invalid JSON -> 400, anything else logged with pino -> 500
 * generic, and `Idempotency-Key` on POST/PUT/PATCH/DELETE (lib/api/idempotency.ts).
 *
 * Usage (app/api/v1/jobs/route.ts):
 *   export const POST = rest({ role: 'operator', operation: 'jobs.create', status: 201 },
 *     ({ db, body, actor }) => createJob(db, body, actor));
 */
import type { z } from 'zod';
import { getDb, type Db } from '@/lib/db';
import { DomainError, isDomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { requireRole, type Actor, type Role } from '@/lib/auth/actor';
import { getSessionActor, SESSION_COOKIE } from '@/lib/auth/sessions';
import { authenticateToken } from '@/lib/auth/tokens';
import { parseOrThrow } from '@/lib/api/validation';
import { requestHash, withIdempotency } from '@/lib/api/idempotency';

const logger = log('rest');

/** What a handler may return instead of plain data: an explicit status (and headers). */
export class RestResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** id of the created/changed resource, stored with an idempotency key */
    readonly resourceId?: string | null,
  ) {}
}
export function respond(status: number, body: unknown, headers?: Record<string, string>): RestResponse {
  return new RestResponse(status, body, headers);
}

export type RestContext<P, Q, B> = {
  req: Request;
  /** null only for `role: 'public'` routes without credentials */
  actor: Actor;
  params: P;
  query: Q;
  /** parsed with `body` schema when given, else the raw JSON ({} for an empty body) */
  body: B;
  /** the client, or the idempotency transaction when an Idempotency-Key was sent: pass it on */
  db: Db;
  now: Date;
};

export type RestOptions<P, Q, B> = {
  /** least role; 'public' = no credentials needed (an invalid token is still a 401). Default 'viewer'. */
  role?: Role | 'public';
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** success status (default 200; 201 for creations) */
  status?: number;
  /** operation name stored with an idempotency key (default `METHOD path-pattern`) */
  operation?: string;
  /** false: ignore Idempotency-Key (e.g. responses carrying a secret must not be stored). Default true. */
  idempotency?: boolean;
};

type RouteCtx = { params: Promise<Record<string, string | string[] | undefined>> };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** DomainError -> JSON error response. */
export function errorResponse(e: DomainError): Response {
  const error: Record<string, unknown> = { code: e.code, message: e.message };
  if (e.fields && Object.keys(e.fields).length) error.fields = e.fields;
  if (e.detail) error.detail = e.detail;
  const headers: Record<string, string> = {};
  if (e.code === 'rate_limited' && typeof e.detail?.retryAfterSeconds === 'number') headers['retry-after'] = String(e.detail.retryAfterSeconds);
  if (e.code === 'unauthorized') headers['www-authenticate'] = 'Bearer realm="tickflow"';
  return jsonResponse(e.status, { error }, headers);
}

function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0) {
      const k = part.slice(0, i).trim();
      try {
        out[k] = decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        /* ignore malformed cookie */
      }
    }
  }
  return out;
}

/**
 * Resolves the caller: `Authorization: Bearer <token>` (an API token or
 * TICKFLOW_API_TOKEN), else the `tickflow_session` cookie. A bearer header
 * that does not authenticate is a 401 even on public routes.
 */
export async function authenticateRequest(db: Db, req: Request, now = new Date()): Promise<Actor | null> {
  const auth = req.headers.get('authorization');
  if (auth) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    const actor = m ? await authenticateToken(db, m[1], now) : null;
    if (!actor) throw new DomainError('unauthorized', 'Invalid or expired API token');
    return actor;
  }
  const sid = parseCookies(req.headers.get('cookie'))[SESSION_COOKIE];
  return sid ? getSessionActor(db, sid, now) : null;
}

/** URLSearchParams -> object (a repeated key becomes comma-joined). */
export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of url.searchParams) out[k] = k in out ? `${out[k]},${v}` : v;
  return out;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Wraps a route handler; see the module comment. */
export function rest<P = Record<string, string>, Q = Record<string, string>, B = unknown>(
  opts: RestOptions<P, Q, B>,
  fn: (ctx: RestContext<P, Q, B>) => Promise<unknown>,
): (req: Request, ctx?: RouteCtx) => Promise<Response> {
  return async (req: Request, routeCtx?: RouteCtx) => {
    const now = new Date();
    const url = new URL(req.url);
    try {
      const db = getDb();
      const actor = await authenticateRequest(db, req, now);
      const role = opts.role ?? 'viewer';
      if (role !== 'public') requireRole(actor, role);

      const rawParams = (await routeCtx?.params) ?? {};
      const params = (opts.params ? parseOrThrow(opts.params, rawParams) : rawParams) as P;
      const rawQuery = queryObject(url);
      const query = (opts.query ? parseOrThrow(opts.query, rawQuery) : rawQuery) as Q;

      let rawText = '';
      let rawBody: unknown = {};
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        rawText = await req.text();
        if (rawText.trim() !== '') {
          try {
            rawBody = JSON.parse(rawText);
          } catch {
            throw new DomainError('validation', 'Request body is not valid JSON', { _body: 'Invalid JSON' });
          }
        }
      }
      const body = (opts.body ? parseOrThrow(opts.body, rawBody) : rawBody) as B;
      const status = opts.status ?? 200;

      const exec = async (dbc: Db) => {
        const out = await fn({ req, actor: actor as Actor, params, query, body, db: dbc, now });
        if (out instanceof RestResponse) return out;
        const id = out && typeof out === 'object' && 'id' in out ? String((out as { id: unknown }).id) : null;
        return new RestResponse(status, out ?? {}, {}, id);
      };

      const idemKey = req.headers.get('idempotency-key');
      if (idemKey !== null && opts.idempotency !== false && WRITE_METHODS.has(req.method) && actor) {
        const r = await withIdempotency(
          db,
          {
            key: idemKey,
            operation: opts.operation ?? `${req.method} ${url.pathname}`,
            hash: requestHash(req.method, url.pathname + url.search, rawText),
            actorName: actor.name,
            now,
          },
          async (tx) => {
            const res = await exec(tx);
            return { status: res.status, body: res.body, resourceId: res.resourceId };
          },
        );
        return jsonResponse(r.status, r.body, r.replayed ? { 'idempotent-replayed': 'true' } : {});
      }
      const res = await exec(db);
      return jsonResponse(res.status, res.body, res.headers);
    } catch (e) {
      if (isDomainError(e)) return errorResponse(e);
      logger.error({ err: e, method: req.method, path: url.pathname }, 'unhandled error in route handler');
      return jsonResponse(500, { error: { code: 'internal', message: 'Internal server error' } });
    }
  };
}
