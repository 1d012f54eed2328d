/**
 * Console sessions: a random 32-byte id lives only in the httpOnly cookie
 * `tickflow_session`; the database stores sha256(id), so a leaked table cannot
 * be replayed. Sessions last 7 days.
 */
import type { Db } from '../db.ts';
import type { User } from '../generated/prisma/client.ts';
import type { Actor } from './actor.ts';
import { randomToken, sha256Hex } from './crypto.ts';

export const SESSION_COOKIE = 'tickflow_session';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** Creates a session for a user; returns the raw id (cookie value, shown nowhere else) and expiry. */
export async function createSession(db: Db, userId: string, now = new Date()): Promise<{ id: string; expiresAt: Date }> {
  const id = randomToken(32);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await db.session.create({ data: { id: sha256Hex(id), userId, expiresAt, createdAt: now } });
  return { id, expiresAt };
}

/** The actor for a raw session id, or null (unknown, expired, user disabled). */
export async function getSessionActor(db: Db, rawId: string | null | undefined, now = new Date()): Promise<Actor | null> {
  if (!rawId || rawId.length > 200) return null;
  // The session and its user in one round trip: every console page and action pays for this lookup.
  const [s] = await db.$queryRaw<{ expiresAt: Date; userId: string; email: string; role: User['role']; disabled: boolean }[]>`
    SELECT s.expires_at AS "expiresAt", u.id AS "userId", u.email, u.role::text AS role, u.disabled
      FROM sessions s JOIN users u ON u.id = s.user_id
     WHERE s.id = ${sha256Hex(rawId)}`;
  if (!s || s.expiresAt.getTime() <= now.getTime() || s.disabled) return null;
  return { kind: 'user', id: s.userId, name: s.email, role: s.role };
}

/** Ends a session (logout). Unknown ids are ignored. */
export async function deleteSession(db: Db, rawId: string | null | undefined): Promise<void> {
  if (!rawId) return;
  await db.session.deleteMany({ where: { id: sha256Hex(rawId) } });
}

/** Removes expired sessions (for a system job). Returns the number removed. */
export async function cleanupSessions(db: Db, now = new Date()): Promise<number> {
  const r = await db.session.deleteMany({ where: { expiresAt: { lte: now } } });
  return r.count;
}
