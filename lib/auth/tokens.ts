/**
 * API tokens: `tf_` + 32 random bytes (base64url). Shown once at creation;
 * stored as sha256 with a display prefix. `TICKFLOW_API_TOKEN` (env) is an
 * admin token compared in constant time.
 */
import { getDb, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { ApiToken } from '../generated/prisma/client.ts';
import { isUuid } from '../api/ids.ts';
import { type Actor, type Role, requireCan } from './actor.ts';
import { randomToken, safeEqual, sha256Hex } from './crypto.ts';

export const TOKEN_PREFIX = 'tf_';

export type ApiTokenView = {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  userId: string | null;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
};

export function toApiTokenView(t: ApiToken): ApiTokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    role: t.role,
    userId: t.userId,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
  };
}

/** Admin only. Returns the view and the raw token (shown once, never stored). */
export async function createApiToken(
  db: Db = getDb(),
  data: { name: string; role: Role; expiresAt?: Date | null },
  actor: Actor,
  now = new Date(),
): Promise<{ token: string; view: ApiTokenView }> {
  requireCan(actor, 'tokens.manage');
  const token = TOKEN_PREFIX + randomToken(32);
  const row = await db.apiToken.create({
    data: {
      name: data.name,
      role: data.role,
      tokenHash: sha256Hex(token),
      prefix: token.slice(0, 10),
      expiresAt: data.expiresAt ?? null,
      userId: actor.kind === 'user' ? actor.id : null,
      createdAt: now,
    },
  });
  return { token, view: toApiTokenView(row) };
}

/** Admin only, newest first, revoked ones included (with revokedAt). */
export async function listApiTokens(db: Db = getDb(), actor: Actor): Promise<ApiTokenView[]> {
  requireCan(actor, 'tokens.manage');
  const rows = await db.apiToken.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] });
  return rows.map(toApiTokenView);
}

/** Admin only. Revoking twice is a no-op. */
export async function revokeApiToken(db: Db = getDb(), id: string, actor: Actor, now = new Date()): Promise<ApiTokenView> {
  requireCan(actor, 'tokens.manage');
  const row = isUuid(id) ? await db.apiToken.findUnique({ where: { id } }) : null;
  if (!row) throw new DomainError('not_found', `API token ${id} not found`);
  if (row.revokedAt) return toApiTokenView(row);
  return toApiTokenView(await db.apiToken.update({ where: { id }, data: { revokedAt: now } }));
}

/**
 * The actor for a bearer token, or null (unknown, revoked, expired). Checks
 * TICKFLOW_API_TOKEN first (admin, constant-time compare). Stamps last_used_at
 * at most once a minute.
 */
export async function authenticateToken(db: Db = getDb(), raw: string | null | undefined, now = new Date()): Promise<Actor | null> {
  if (!raw || raw.length > 300) return null;
  const envToken = process.env.TICKFLOW_API_TOKEN;
  if (envToken && safeEqual(raw, envToken)) return { kind: 'token', id: 'env', name: 'token:env', role: 'admin' };
  if (!raw.startsWith(TOKEN_PREFIX)) return null;
  const row = await db.apiToken.findUnique({ where: { tokenHash: sha256Hex(raw) }, include: { user: true } });
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now.getTime())) return null;
  if (row.user?.disabled) return null;
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } }).catch(() => undefined);
  }
  return { kind: 'token', id: row.id, name: `token:${row.name}`, role: row.role };
}
