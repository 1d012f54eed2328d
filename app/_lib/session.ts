/**
 * Console auth helpers for pages, layouts and server actions (Next 16: cookies()
 * and headers() are async).
 *
 * - `getActor()`: the signed-in Actor or null (cached per request).
 * - `requireActor(minRole)`: for pages/layouts — redirects to /login when signed
 *   out; throws DomainError('forbidden') for a weaker role.
 * - `requireActionActor(minRole)`: for server actions — throws
 *   DomainError('unauthorized' | 'forbidden') instead of redirecting (see action.ts).
 * - `signIn(email, password)` / `signOut()`: set / clear the session cookie.
 */
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getDb } from '@/lib/db';
import { requireRole, type Actor, type Role } from '@/lib/auth/actor';
import { getSessionActor, SESSION_COOKIE } from '@/lib/auth/sessions';
import { login, logout } from '@/lib/auth/login';

export const getActor = cache(async (): Promise<Actor | null> => {
  const sid = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!sid) return null;
  return getSessionActor(getDb(), sid);
});

/** Pages/layouts: the actor, or redirect('/login?next=...'); forbidden role -> DomainError 403. */
export async function requireActor(minRole: Role = 'viewer'): Promise<Actor> {
  const actor = await getActor();
  if (!actor) redirect('/login');
  return requireRole(actor, minRole);
}

/** Server actions: the actor or a thrown DomainError (unauthorized / forbidden). */
export async function requireActionActor(minRole: Role = 'viewer'): Promise<Actor> {
  return requireRole(await getActor(), minRole);
}

/** Client IP for rate limiting (first X-Forwarded-For hop, else X-Real-IP, else 'local'). */
export async function clientIp(): Promise<string> {
  const h = await headers();
  return h.get('x-forwarded-for')?.split(',')[0]?.trim() || h.get('x-real-ip') || 'local';
}

/**
 * Logs in (rate-limited, lib/auth/login.ts) and sets the httpOnly, SameSite=Lax
 * `tickflow_session` cookie (Secure when the request came over https), 7 days.
 * @throws DomainError('unauthorized' | 'rate_limited').
 */
export async function signIn(email: string, password: string): Promise<Actor> {
  const r = await login(getDb(), { email, password, ip: await clientIp() });
  const h = await headers();
  const secure = h.get('x-forwarded-proto') === 'https' || process.env.TICKFLOW_SECURE_COOKIES === '1';
  (await cookies()).set(SESSION_COOKIE, r.sessionId, {
    httpOnly: true,
    sameSite: 'lax',
    secure,
    path: '/',
    expires: r.expiresAt,
  });
  return r.actor;
}

/** Ends the session and clears the cookie. */
export async function signOut(): Promise<void> {
  const jar = await cookies();
  await logout(getDb(), jar.get(SESSION_COOKIE)?.value);
  jar.delete(SESSION_COOKIE);
}
