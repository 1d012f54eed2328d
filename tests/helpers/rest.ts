/**
 * Calling /api/v1 route handlers directly in integration tests: a Request in,
 * status/headers/parsed JSON out, with a bearer token and params as Next would
 * pass them. Plus the usual fixture: a fresh database whose DATABASE_URL the
 * handlers use, and one API token per role.
 */
import { randomUUID } from 'node:crypto';
import { SYSTEM_ACTOR, type Role } from '../../lib/auth/actor.ts';
import { SCOPE_OF_ROLE } from '../../lib/auth/scopes.ts';
import { createApiToken } from '../../lib/auth/tokens.ts';
import { createUser } from '../../lib/auth/users.ts';
import type { Db } from '../../lib/db.ts';
import { afterAll, beforeAll, expect } from 'vitest';
import { offerHandlers, useTestDatabase, type TestDatabase } from './db.ts';

export type RouteHandler = (req: Request, ctx?: { params: Promise<Record<string, string>> }) => Promise<Response>;
export type CallOpts = { token?: string | null; body?: unknown; rawBody?: string | Uint8Array<ArrayBuffer>; params?: Record<string, string>; headers?: Record<string, string> };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
export type CallResult = { status: number; headers: Headers; json: any };

/** Calls a route handler the way Next does; `body` is sent as JSON, `rawBody` as is. */
export async function call(handler: RouteHandler, method: string, url: string, opts: CallOpts = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await handler(new Request(`http://localhost${url}`, { method, headers, body }), { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

/**
 * A new user with `role` and an API token it owns with the matching scope
 * (lib/auth/scopes.ts): every token has an owner. Returns the raw token.
 */
export async function userToken(db: Db, role: Role, name: string = role): Promise<string> {
  const user = await createUser(db, { email: `${name}-${randomUUID().slice(0, 8)}@test.local`, password: 'test-password-1', role }, SYSTEM_ACTOR);
  return (await createApiToken(db, { name, scope: SCOPE_OF_ROLE[role], ownerId: user.id }, SYSTEM_ACTOR)).token;
}

export interface RestFixture {
  t: TestDatabase;
  admin: string;
  operator: string;
  viewer: string;
}

/**
 * The REST fixture of a test file, on the shared lifecycle (useTestDatabase): a fresh
 * database (DATABASE_URL points at it, so getDb() in the handlers uses it), custom
 * `handlers` registered as known, and an admin, operator and viewer token, created in
 * beforeAll and handed to `ready` (which keeps what it needs); the handlers' client is
 * disconnected in afterAll, before the database is dropped.
 */
export function useRestFixture(handlers: string[], ready: (f: RestFixture) => void): void {
  const t = useTestDatabase();
  beforeAll(async () => {
    if (handlers.length) await offerHandlers(t, handlers);
    process.env.DATABASE_URL = t.url;
    const token = (name: string, role: Role) => userToken(t.db, role, name);
    ready({ t, admin: await token('admin', 'admin'), operator: await token('ops', 'operator'), viewer: await token('view', 'viewer') });
  });
  afterAll(async () => {
    const { getDb } = await import('../../lib/db.ts');
    await getDb().$disconnect();
  });
}

/**
 * Matches what history columns keep for a token's action: `token:<name> (<owner email>)`
 * (lib/auth/tokens.ts checkApiToken): the token's name and whose token it is.
 */
export function byToken(name: string): unknown {
  return expect.stringMatching(new RegExp(`^token:${name} \\([^\\s()]+@[^\\s()]+\\)$`));
}
