import { getDb, type Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { Actor } from './actor.ts';
import { dummyPasswordHash, verifyPassword } from './password.ts';
import { loginLimiter, type LoginRateLimiter } from './rate-limit.ts';
import { createSession, deleteSession } from './sessions.ts';
import { normalizeEmail } from './users.ts';

export type LoginResult = { actor: Actor; sessionId: string; expiresAt: Date };

/**
 * Email + password login. On success creates a session (raw id returned for
 * the cookie) and stamps last_login_at.
 * @throws DomainError('rate_limited') after 5 failures per email+IP in 15 min
 *   (detail.retryAfterSeconds), DomainError('unauthorized') for a bad email or
 *   password or a disabled user (one message for all, no enumeration).
 */
export async function login(
  db: Db = getDb(),
  input: { email: string; password: string; ip?: string },
  now = new Date(),
  limiter: LoginRateLimiter = loginLimiter(),
): Promise<LoginResult> {
  const email = normalizeEmail(String(input.email ?? ''));
  const ip = input.ip || 'unknown';
  const wait = limiter.retryAfterSeconds(email, ip, now);
  if (wait > 0) {
    throw new DomainError('rate_limited', `Too many failed logins; try again in ${Math.ceil(wait / 60)} min`, undefined, {
      retryAfterSeconds: wait,
    });
  }
  const user = email ? await db.user.findUnique({ where: { email } }) : null;
  const ok = await verifyPassword(String(input.password ?? ''), user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok || user.disabled) {
    limiter.recordFailure(email, ip, now);
    throw new DomainError('unauthorized', 'Invalid email or password');
  }
  limiter.reset(email, ip);
  const session = await createSession(db, user.id, now);
  await db.user.update({ where: { id: user.id }, data: { lastLoginAt: now } });
  return {
    actor: { kind: 'user', id: user.id, name: user.email, role: user.role },
    sessionId: session.id,
    expiresAt: session.expiresAt,
  };
}

/** Ends the session with this raw id. */
export async function logout(db: Db = getDb(), sessionId: string | null | undefined): Promise<void> {
  await deleteSession(db, sessionId);
}
