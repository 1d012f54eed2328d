/**
 * API tokens: `tf_` + 32 random bytes (base64url). Shown once at creation;
 * stored as sha256 with a display prefix. Every token has an owner user and a
 * scope (read / operate / admin, lib/auth/scopes.ts): it acts with its scope's
 * role, and stops working as soon as its owner is disabled, deleted (cascade) or
 * no longer holds that role (docs/security.md "Tokens").
 *
 * `TICKFLOW_API_TOKEN` (env) is the bootstrap admin token, compared in constant
 * time; it has no owner, so a token made with it must name one (`ownerId`).
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { ApiToken, User } from '../generated/prisma/client.ts';
import { isUuid } from '../api/ids.ts';
import { type Actor, requireCan, roleAtLeast } from './actor.ts';
import { randomToken, safeEqual, sha256Hex } from './crypto.ts';
import { ROLE_OF_SCOPE, type TokenScope } from './scopes.ts';

export const TOKEN_PREFIX = 'tf_';

/** checkApiToken's row: the token's columns it judges, with its owner's. */
type TokenWithOwner = {
  id: string;
  userId: string;
  name: string;
  scope: TokenScope;
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  ownerEmail: string;
  ownerRole: User['role'];
  ownerDisabled: boolean;
};

export type ApiTokenView = {
  id: string;
  name: string;
  prefix: string;
  scope: TokenScope;
  userId: string;
  /** the owner's email */
  owner: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  createdAt: string;
};

export function toApiTokenView(t: ApiToken & { user: Pick<User, 'email'> }): ApiTokenView {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scope: t.scope,
    userId: t.userId,
    owner: t.user.email,
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    revokedAt: t.revokedAt?.toISOString() ?? null,
    createdAt: t.createdAt.toISOString(),
  };
}

/**
 * Admin only. The owner is `ownerId` when given, else the acting user, else the
 * owner of the acting token; the scope may not exceed the owner's current role.
 * Returns the view and the raw token (shown once, never stored).
 * @throws DomainError validation (fields `ownerId`, `scope`), forbidden.
 */
export async function createApiToken(
  db: Db,
  data: { name: string; scope: TokenScope; expiresAt?: Date | null; ownerId?: string | null },
  actor: Actor,
  now = new Date(),
): Promise<{ token: string; view: ApiTokenView }> {
  requireCan(actor, 'tokens.manage');
  const ownerId = data.ownerId ?? (actor.kind === 'user' ? actor.id : actor.kind === 'token' ? (actor.ownerId ?? null) : null);
  if (!ownerId) {
    throw new DomainError('validation', 'A token needs an owner: name one with ownerId (the bootstrap token and the system own no tokens)', {
      ownerId: 'Required when the caller is not a user',
    });
  }
  const owner = isUuid(ownerId) ? await db.user.findUnique({ where: { id: ownerId } }) : null;
  if (!owner || owner.disabled) throw new DomainError('validation', `Owner ${ownerId} is not an enabled user`, { ownerId: 'No enabled user with this id' });
  const needs = ROLE_OF_SCOPE[data.scope];
  if (!roleAtLeast(owner.role, needs)) {
    throw new DomainError('validation', `Scope ${data.scope} needs the ${needs} role; the owner ${owner.email} is ${owner.role}`, {
      scope: `At most the owner's role (${owner.role})`,
    });
  }
  const token = TOKEN_PREFIX + randomToken(32);
  const row = await db.apiToken.create({
    data: {
      name: data.name,
      scope: data.scope,
      tokenHash: sha256Hex(token),
      prefix: token.slice(0, 10),
      expiresAt: data.expiresAt ?? null,
      userId: owner.id,
      createdAt: now,
    },
    include: { user: { select: { email: true } } },
  });
  return { token, view: toApiTokenView(row) };
}

/** Admin only, newest first, revoked ones included (with revokedAt). */
export async function listApiTokens(db: Db, actor: Actor): Promise<ApiTokenView[]> {
  requireCan(actor, 'tokens.manage');
  const rows = await db.apiToken.findMany({ orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], include: { user: { select: { email: true } } } });
  return rows.map(toApiTokenView);
}

/** Admin only. Revoking twice is a no-op. */
export async function revokeApiToken(db: Db, id: string, actor: Actor, now = new Date()): Promise<ApiTokenView> {
  requireCan(actor, 'tokens.manage');
  const include = { user: { select: { email: true } } } as const;
  const row = isUuid(id) ? await db.apiToken.findUnique({ where: { id }, include }) : null;
  if (!row) throw new DomainError('not_found', `API token ${id} not found`);
  if (row.revokedAt) return toApiTokenView(row);
  return toApiTokenView(await db.apiToken.update({ where: { id }, data: { revokedAt: now }, include }));
}

/**
 * The actor for a bearer token, or null: unknown, revoked, expired, or its owner
 * disabled or holding less than the token's scope (checkApiToken says which).
 */
export async function authenticateToken(db: Db, raw: string | null | undefined, now = new Date()): Promise<Actor | null> {
  const r = await checkApiToken(db, raw, now);
  return 'actor' in r ? r.actor : null;
}

/**
 * Checks a bearer token: its actor, or why it is refused. Checks TICKFLOW_API_TOKEN first
 * (bootstrap admin, constant-time compare). Stamps last_used_at at most once a minute.
 *
 * A caller that presents a token's exact secret is told why it no longer works (revoked,
 * expired, owner disabled, owner's role below the token's scope: docs/security.md "Tokens"),
 * so that a token broken by a demotion is not taken for a typo; anything else, an unknown or
 * malformed token included, gets the one message that reveals nothing.
 */
export async function checkApiToken(db: Db, raw: string | null | undefined, now = new Date()): Promise<{ actor: Actor } | { refused: string }> {
  const unknown = { refused: 'Invalid API token' };
  if (!raw || raw.length > 300) return unknown;
  const envToken = process.env.TICKFLOW_API_TOKEN;
  if (envToken && safeEqual(raw, envToken)) return { actor: { kind: 'token', id: 'env', name: 'token:env', role: 'admin', ownerId: null } };
  if (!raw.startsWith(TOKEN_PREFIX)) return unknown;
  // The token and its owner in one round trip: every API request pays for this lookup.
  const [row] = await db.$queryRaw<TokenWithOwner[]>`
    SELECT t.id, t.user_id AS "userId", t.name, t.scope::text AS scope, t.last_used_at AS "lastUsedAt",
           t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
           u.email AS "ownerEmail", u.role::text AS "ownerRole", u.disabled AS "ownerDisabled"
      FROM api_tokens t JOIN users u ON u.id = t.user_id
     WHERE t.token_hash = ${sha256Hex(raw)}`;
  if (!row) return unknown;
  if (row.revokedAt) return { refused: 'This API token was revoked' };
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) return { refused: 'This API token has expired' };
  const role = ROLE_OF_SCOPE[row.scope];
  if (row.ownerDisabled) return { refused: "This API token's owner is disabled" };
  if (!roleAtLeast(row.ownerRole, role)) {
    const a = (r: string) => (/^[aeiou]/.test(r) ? `an ${r}` : `a ${r}`);
    return { refused: `This API token's scope (${row.scope}) needs its owner to be ${a(role)} or above, and the owner is now ${a(row.ownerRole)}: create a new token, or restore the owner's role` };
  }
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > 60_000) {
    await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now } }).catch(() => undefined);
  }
  // The name is what history columns keep (created_by, triggered_by, audit): the owner's email with the
  // token's name, since token names are not unique and a history must say whose hand it was.
  return { actor: { kind: 'token', id: row.id, name: `token:${row.name} (${row.ownerEmail})`, role, ownerId: row.userId } };
}
