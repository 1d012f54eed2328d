/**
 * The REST door's one wrapper for route handlers (docs/design.md §5): auth (bearer
 * token or the console session cookie), role check, zod parsing of params /
 * query / body, DomainError -> `{ "error": { "code", "message", "fields"?, "detail"? } }`
 * with its status, a body that is not UTF-8, invalid JSON or a key written twice in one object -> 400 (the
 * duplicated key named at its path, lib/api/json-guard.ts duplicateKeys), a compressed body (Content-Encoding) -> 415,
 * a body over 1 MB -> 413, a database that
 * cannot be reached -> 503 `database_unavailable` with Retry-After, a transaction that ran out of
 * time -> 503 `transaction_timeout` (nothing was changed: lib/infra/transaction-timeout.ts), anything else
 * logged with pino -> 500 generic, and `Idempotency-Key` on POST/PUT/PATCH/DELETE
 * (lib/api/idempotency.ts). Mutating requests authenticated by the session cookie
 * must be same-origin JSON (checkSameOrigin: 403 "cross-origin request refused").
 *
 * Order of checks, the same on every route (README "REST"; tests/integration/api-request-rules.test.ts): a
 * request wrong in several ways gets the answer of the first check it fails.
 *   1. the database is reachable (503 `database_unavailable`);
 *   2. credentials (401), then same-origin for a cookie write, then the role (403);
 *   3. the body's framing: Content-Encoding (415), size (413), UTF-8 and JSON (400 at `_body`);
 *   4. the target: on a resource that does not exist, a 400 of steps 3 and 6 or the 422 of step 5
 *      answers its 404 instead (RestOptions.resource, lib/api/missing-resource.ts);
 *   5. Idempotency-Key on a write: the key itself (400 at `Idempotency-Key`), then a replay of the stored
 *      answer, another request under the key (422 `idempotency_mismatch`) or an answer not kept (409);
 *   6. the fields: path parameters, query parameters, then the body (400 naming each);
 *   7. the operation itself (its own 404, 409, 422).
 * A replay at step 5 is the first request's answer, whatever changed since.
 *
 * The role a route needs comes from its `operation` (lib/auth/permissions.ts, the
 * one table the console's server actions use too); the returned handler carries
 * it as `handler.operation` so tests can walk every route's decision.
 *
 * Usage (app/api/v1/jobs/route.ts):
 *   export const POST = rest({ operation: 'jobs.create', status: 201 },
 *     ({ db, body, actor }) => createJob(db, body, actor));
 */
import type { z } from 'zod';
import { getDb, type Db } from '@/lib/db';
import { DomainError, isDomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import type { Actor } from '@/lib/auth/actor';
import { requireOperation, type Operation } from '@/lib/auth/permissions';
import { getSessionActor, SESSION_COOKIE } from '@/lib/auth/sessions';
import { checkApiToken } from '@/lib/auth/tokens';
import { duplicateKeyFieldErrors, fieldErrorsOf, parseOrThrow, queryObject, refuseUnknownQueryParameters, validationError, withFieldErrors } from '@/lib/api/validation';
import { decodeUtf8, NOT_UTF8_MESSAGE } from '@/lib/api/json-guard';
import { pgErrorCode } from '@/lib/pg-error-code';
import { REPLAYABLE_SQLSTATES } from '@/lib/engine/lock-order';
import { requestHash, withIdempotency } from '@/lib/api/idempotency';
import { DATABASE_RETRY_AFTER_SECONDS, DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '@/lib/infra/database-unavailable';
import { databaseReachable, markDatabaseUnreachable } from '@/lib/infra/database-probe';
import { transactionTimeoutMessage } from '@/lib/infra/transaction-timeout';
import { fromTrustedProxy } from '@/lib/auth/client-address';
import { readAtMost } from '@/lib/net/read-capped';
import { BODY_TOO_LARGE_MESSAGE, MAX_BODY_BYTES } from '@/lib/api/body-limit';
import { missingResource, type ResourceKind } from '@/lib/api/missing-resource';
import { dictionary } from '@/lib/own-keys';

const logger = log('rest');

/**
 * 503 with Retry-After: the database is restarting, failing over or not answering. The body is the
 * API's `database_unavailable` error, or the route's own answer for that case (RestOptions.whileDatabaseDown).
 */
function databaseUnavailableResponse(ownBody?: Record<string, unknown>): Response {
  return jsonResponse(503, ownBody ?? { error: { code: 'database_unavailable', message: DATABASE_UNAVAILABLE_MESSAGE } }, { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) });
}

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
  /** what the route does (lib/auth/permissions.ts): decides the role it needs; also the name stored with an idempotency key. A public operation needs no credentials (an invalid token is still a 401). */
  operation: Operation;
  params?: z.ZodType<P>;
  /** the query schema, parsed here; its keys are the query parameters the route accepts */
  query?: z.ZodType<Q>;
  /**
   * The query schema of a route whose domain function parses the query itself (it takes the raw
   * object): only its keys are read here. A route with neither accepts no query parameter.
   */
  queryParsedBy?: { shape: Record<string, unknown> };
  body?: z.ZodType<B>;
  /** success status (default 200; 201 for creations) */
  status?: number;
  /**
   * 'no-replay': the answer carries a secret, so it is not stored and a repeat of the key is a 409 (lib/api/idempotency.ts).
   * `{ secretIn }`: decided per answer, for a route whose answer carries a secret only sometimes (a password reset: a
   * generated password, never a given one); `secretIn(answer)` true is 'no-replay' for that answer. Default: replayed.
   */
  idempotency?: 'no-replay' | { secretIn: (answer: unknown) => boolean };
  /**
   * The body of the route's 503 while the database is away, in place of the `database_unavailable`
   * error: a route whose readers parse one shape in both cases (GET /health, read by monitors and
   * load balancers).
   */
  whileDatabaseDown?: Record<string, unknown>;
  /**
   * What the route's `id` parameter names: a request refused for its input (a 400) on a resource
   * that does not exist answers the 404 instead (lib/api/missing-resource.ts).
   */
  resource?: ResourceKind;
};

/** A route handler made by rest(): Next calls it; `operation` names its decision in lib/auth/permissions.ts. */
export type RestHandler = ((req: Request, ctx?: RouteCtx) => Promise<Response>) & { operation: Operation };

type RouteCtx = { params: Promise<Record<string, string | string[] | undefined>> };

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  });
}

/** RestOptions.idempotency as withIdempotency's `replay`: true, false, or a decision per answer. */
function replayPolicy(idempotency: RestOptions<unknown, unknown, unknown>['idempotency']): boolean | ((answer: unknown) => boolean) {
  if (idempotency === undefined) return true;
  if (idempotency === 'no-replay') return false;
  return (answer: unknown) => !idempotency.secretIn(answer);
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
  const out = dictionary<string>(); // cookie names come from the client (lib/own-keys.ts)
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
    if (!m) throw new DomainError('unauthorized', 'Invalid API token: the Authorization header must be "Bearer <token>"');
    const checked = await checkApiToken(db, m[1], now);
    if ('refused' in checked) throw new DomainError('unauthorized', checked.refused);
    return checked.actor;
  }
  const sid = parseCookies(req.headers.get('cookie'))[SESSION_COOKIE];
  return sid ? getSessionActor(db, sid, now) : null;
}

/** The shape of a query schema (an object schema, refined or not): its keys are the accepted parameters; none without one. */
function queryShape(schema: unknown): Record<string, unknown> {
  const shape = (schema as { shape?: unknown } | undefined)?.shape;
  if (schema !== undefined && (typeof shape !== 'object' || shape === null)) {
    // a query schema that is not an object schema would make every parameter unknown: a programming error
    throw new Error('rest(): a query schema must be a z.object');
  }
  return (shape as Record<string, unknown> | undefined) ?? {};
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export { MAX_BODY_BYTES };

/** A request body over MAX_BODY_BYTES (answered 413 `payload_too_large`). */
class BodyTooLarge extends Error {}

/**
 * A request body sent with a content coding (Content-Encoding: gzip, …), answered 415
 * `unsupported_content_encoding` with `Accept-Encoding: identity` (RFC 9110 §8.4 and §15.5.16): read as it
 * is, compressed bytes were refused as "not valid UTF-8", which named the wrong cause.
 */
class EncodedBody extends Error {
  constructor(readonly coding: string) {
    super(`Content-Encoding ${coding} is not accepted`);
  }
}

/**
 * Reads the body as UTF-8 text, refusing a body with a content coding (EncodedBody), more than `limit` bytes
 * (Content-Length first, then while streaming) and bytes that are not UTF-8 (400 at `_body`: a lenient decode
 * would store U+FFFD in their place).
 */
export async function readBodyText(req: Request): Promise<string> {
  const limit = MAX_BODY_BYTES;
  const coding = (req.headers.get('content-encoding') ?? '').trim().toLowerCase();
  if (coding !== '' && coding !== 'identity') throw new EncodedBody(coding.slice(0, 40));
  const declared = Number(req.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  const bytes = await readAtMost(req.body, limit);
  if (bytes === null) throw new BodyTooLarge();
  const text = decodeUtf8(bytes);
  if (text === null) throw new DomainError('validation', 'Request body is not valid UTF-8', { _body: NOT_UTF8_MESSAGE });
  return text;
}

/**
 * `https://host[:port]` the request was addressed to: Host and the URL's scheme, or
 * X-Forwarded-Host / X-Forwarded-Proto when the request came through a trusted proxy
 * (fromTrustedProxy, lib/auth/client-address.ts); from anyone else those headers are ignored.
 */
function ownOrigin(req: Request, url: URL): string {
  const proxied = fromTrustedProxy(req.headers);
  const forwarded = (name: string) => (proxied ? req.headers.get(name)?.split(',')[0]?.trim() : undefined);
  const host = forwarded('x-forwarded-host') || req.headers.get('host') || url.host;
  const proto = forwarded('x-forwarded-proto') || url.protocol.replace(/:$/, '');
  return `${proto}://${host}`.toLowerCase();
}

/**
 * CSRF guard for mutating requests authenticated by the session cookie (a
 * bearer token is not sent by browsers on their own, so token requests skip
 * this): the body must be declared `application/json` (a cross-site form or
 * simple fetch cannot send that without a CORS preflight), an `Origin` header
 * must be this server's own origin, and without Origin a `Sec-Fetch-Site` header
 * must be `same-origin` or `none`.
 * @throws DomainError('forbidden') "cross-origin request refused"
 */
export function checkSameOrigin(req: Request, url: URL): void {
  const refuse = () => {
    throw new DomainError('forbidden', 'cross-origin request refused');
  };
  const type = (req.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') refuse();
  const origin = req.headers.get('origin');
  if (origin !== null) {
    if (origin.toLowerCase() !== ownOrigin(req, url)) refuse();
    return;
  }
  const site = req.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') refuse();
}

/** Wraps a route handler; see the module comment. */
export function rest<P = Record<string, string>, Q = Record<string, string>, B = unknown>(
  opts: RestOptions<P, Q, B>,
  fn: (ctx: RestContext<P, Q, B>) => Promise<unknown>,
): RestHandler {
  const handler = async (req: Request, routeCtx?: RouteCtx) => {
    const now = new Date();
    const url = new URL(req.url);
    let resourceId: string | null = null;
    try {
      // A database that does not answer is a 503 within the probe's timeout (lib/infra/database-probe.ts), as pages
      // are (proxy.ts): one that froze or dropped off the network leaves connections hanging instead of failing, and
      // a request would otherwise wait for the whole outage.
      const databaseUrl = process.env.DATABASE_URL;
      if (databaseUrl && !(await databaseReachable(databaseUrl))) return databaseUnavailableResponse(opts.whileDatabaseDown);
      const db = getDb();
      const actor = await authenticateRequest(db, req, now);
      if (actor && WRITE_METHODS.has(req.method) && !req.headers.get('authorization')) checkSameOrigin(req, url);
      requireOperation(actor, opts.operation);

      const rawParams = (await routeCtx?.params) ?? {};
      // taken before the params are parsed: a path refused for another parameter (`/jobs/<missing>/versions/0`)
      // still answers the missing job's 404
      if (opts.resource) resourceId = String(rawParams.id ?? '');

      // the body's framing (order of checks, step 3): a body that is not UTF-8 or not JSON cannot be compared
      // with the request an Idempotency-Key first did
      let rawText = '';
      let rawBody: unknown = {};
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        rawText = await readBodyText(req);
        if (rawText.trim() !== '') {
          try {
            rawBody = JSON.parse(rawText);
          } catch {
            throw new DomainError('validation', 'Request body is not valid JSON', { _body: 'Invalid JSON' });
          }
        }
      }
      const status = opts.status ?? 200;

      const exec = async (dbc: Db) => {
        // the path, query and body fields (order of checks, step 6), checked after withIdempotency looked the key
        // up: a key reused for another request is its 422 `idempotency_mismatch` whatever that request's fields
        const params = (opts.params ? parseOrThrow(opts.params, rawParams) : rawParams) as P;
        const shape = queryShape(opts.query ?? opts.queryParsedBy);
        const rawQuery = queryObject(url.search, shape);
        refuseUnknownQueryParameters(rawQuery, Object.keys(shape));
        const query = (opts.query ? parseOrThrow(opts.query, rawQuery) : rawQuery) as Q;
        if (rawText.trim() !== '') {
          // a key written twice would silently mean its last value: refused with the body's other bad fields
          const duplicates = duplicateKeyFieldErrors(rawText);
          if (Object.keys(duplicates).length) throw validationError(withFieldErrors(duplicates, opts.body ? fieldErrorsOf(opts.body, rawBody) : {}));
          // every body this API takes is an object; `null` is not an empty one (a route reading its
          // body as `body ?? {}` would take it for one)
          if (rawBody === null) throw new DomainError('validation', 'Request body must be a JSON object', { _root: 'Must be an object' });
        }
        const body = (opts.body ? parseOrThrow(opts.body, rawBody) : rawBody) as B;
        const out = await fn({ req, actor: actor as Actor, params, query, body, db: dbc, now });
        if (out instanceof RestResponse) return out;
        const id = out && typeof out === 'object' && 'id' in out ? String((out as { id: unknown }).id) : null;
        return new RestResponse(status, out ?? {}, {}, id);
      };

      const idemKey = req.headers.get('idempotency-key');
      if (idemKey !== null && WRITE_METHODS.has(req.method) && actor) {
        const r = await withIdempotency(
          db,
          {
            key: idemKey,
            operation: opts.operation,
            hash: requestHash(req.method, url.pathname + url.search, rawText),
            // who may replay: the actor's kind and id (a token's name or a display name can be shared)
            actorKey: `${actor.kind}:${actor.id}`,
            now,
            replay: replayPolicy(opts.idempotency),
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
      if (isDomainError(e)) {
        // order of checks, step 4: a refusal of the request's input or key on a resource that is not there is its 404
        if ((e.code === 'validation' || e.code === 'idempotency_mismatch') && opts.resource && resourceId !== null) {
          const missing = await missingResource(getDb(), opts.resource, resourceId).catch(() => null);
          if (missing) return errorResponse(missing);
        }
        return errorResponse(e);
      }
      if (e instanceof EncodedBody) {
        return jsonResponse(
          415,
          { error: { code: 'unsupported_content_encoding', message: `${e.message}: send the body uncompressed`, fields: { _body: 'Content-Encoding must be identity (none)' } } },
          { 'accept-encoding': 'identity' },
        );
      }
      if (e instanceof BodyTooLarge) {
        return jsonResponse(413, {
          error: { code: 'payload_too_large', message: BODY_TOO_LARGE_MESSAGE, fields: { _body: `At most ${MAX_BODY_BYTES} bytes` } },
        });
      }
      if (isDatabaseUnavailable(e)) {
        // Not a bug: the database is restarting or failing over; say so, and when to come back. The next
        // requests answer 503 at once until a probe finds it again.
        markDatabaseUnreachable();
        logger.warn({ err: e, method: req.method, path: url.pathname }, 'database unavailable');
        return databaseUnavailableResponse(opts.whileDatabaseDown);
      }
      if (REPLAYABLE_SQLSTATES.has(pgErrorCode(e) ?? '')) {
        // A lock conflict that outlasted its replays (lib/db.ts inTransaction): nothing was changed; try again.
        logger.warn({ err: e, method: req.method, path: url.pathname }, 'lock conflict outlasted its replays');
        return jsonResponse(503, { error: { code: 'busy', message: 'The database was busy with the same rows and nothing was changed; try again in a moment' } }, { 'retry-after': '1' });
      }
      const timedOut = transactionTimeoutMessage(e);
      if (timedOut) {
        // Its transaction ran out of time and was rolled back (lib/infra/transaction-timeout.ts): not a bug, nothing was changed.
        logger.warn({ err: e, method: req.method, path: url.pathname }, 'transaction ran out of time');
        return jsonResponse(503, { error: { code: 'transaction_timeout', message: timedOut } });
      }
      logger.error({ err: e, method: req.method, path: url.pathname }, 'unhandled error in route handler');
      return jsonResponse(500, { error: { code: 'internal', message: 'Internal server error' } });
    }
  };
  return Object.assign(handler, { operation: opts.operation });
}
