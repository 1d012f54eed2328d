import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import type { Actor } from './actor.ts';
import { assertPasswordFitsBcrypt, dummyPasswordHash, verifyPassword } from './password.ts';
import { loginLimiter, type LoginRateLimiter } from './rate-limit.ts';
import { createSession, deleteSession } from './sessions.ts';
import { normalizeEmail } from './users.ts';

export type LoginResult = { actor: Actor; sessionId: string; expiresAt: Date };

/**
 * Email + password login. On success creates a session (raw id returned for
 * the cookie) and stamps last_login_at.
 * `client` is the client address lib/auth/client-address.ts trusted.
 * @throws DomainError('validation') for a password over 72 UTF-8 bytes (field
 *   `password`: bcrypt would ignore the rest), DomainError('rate_limited') per
 *   lib/auth/rate-limit.ts (detail.retryAfterSeconds), DomainError('unauthorized')
 *   for a bad email or password or a disabled user (one message, no enumeration).
 */
export async function login(
  db: Db,
  input: { email: string; password: string; client?: string },
  now = new Date(),
  limiter: LoginRateLimiter = loginLimiter(),
): Promise<LoginResult> {
  const email = normalizeEmail(String(input.email ?? ''));
  const client = input.client || 'unknown';
  assertPasswordFitsBcrypt(String(input.password ?? ''));
  // counted before bcrypt (lib/auth/rate-limit.ts attempt): guesses sent at once cannot all pass the check
  const wait = await limiter.attempt(db, email, client, now);
  if (wait > 0) {
    throw new DomainError('rate_limited', `Too many failed logins; try again in ${Math.ceil(wait / 60)} min`, undefined, {
      retryAfterSeconds: wait,
    });
  }
  const user = email ? await db.user.findUnique({ where: { email } }) : null;
  const ok = await verifyPassword(String(input.password ?? ''), user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok || user.disabled) {
    throw new DomainError('unauthorized', 'Invalid email or password');
  }
  await limiter.reset(db, email, client);
  const session = await createSession(db, user.id, now);
  await db.user.update({ where: { id: user.id }, data: { lastLoginAt: now } });
  return {
    actor: { kind: 'user', id: user.id, name: user.email, role: user.role },
    sessionId: session.id,
    expiresAt: session.expiresAt,
  };
}

/** Ends the session with this raw id. */
export async function logout(db: Db, sessionId: string | null | undefined): Promise<void> {
  await deleteSession(db, sessionId);
}
