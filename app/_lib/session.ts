/**
 * Console auth helpers for pages, layouts and server actions (Next 16: cookies()
 * and headers() are async).
 *
 * - `getActor()`: the signed-in Actor or null (cached per request).
 * - `requireActor(minRole)`: for pages/layouts — redirects to /login?next=<the page> when
 *   signed out (`redirectToLogin`); throws DomainError('forbidden') for a weaker role.
 * Server actions do not check roles here: app/_actions/define-action.ts does, from
 * the operation table (lib/auth/permissions.ts).
 * - `signIn(email, password)` / `signOut()`: set / clear the session cookie.
 */
import { cache } from 'react';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { getDb } from '@/lib/db';
import { outageOr } from '@/app/_lib/page-error';
import { requireRole, type Actor, type Role } from '@/lib/auth/actor';
import { getSessionActor, SESSION_COOKIE } from '@/lib/auth/sessions';
import { login, logout } from '@/lib/auth/login';
import { clientAddressOf, fromTrustedProxy } from '@/lib/auth/client-address';
import { loginPathFor, REQUESTED_PATH_HEADER } from '@/lib/auth/next-path';

/** X-Forwarded-Proto: https, believed only from a trusted proxy (a client could claim it to get a Secure cookie over http, harmless, but keep one rule). */
async function forwardedHttps(): Promise<boolean> {
  const h = await headers();
  return h.get('x-forwarded-proto') === 'https' && fromTrustedProxy(h);
}

export const getActor = cache(async (): Promise<Actor | null> => {
  const sid = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!sid) return null;
  try {
    return await getSessionActor(getDb(), sid);
  } catch (error) {
    // every console page asks this first: the outage is noticed here, and the next page is a 503 (proxy.ts)
    throw outageOr(error);
  }
});

/**
 * Sends a visitor without a session to sign in, and back to the page they asked for afterwards
 * (the path proxy.ts put in REQUESTED_PATH_HEADER; lib/auth/next-path.ts loginPathFor). Never returns.
 */
export async function redirectToLogin(): Promise<never> {
  redirect(loginPathFor((await headers()).get(REQUESTED_PATH_HEADER)));
}

/** Pages/layouts: the actor, or redirectToLogin(); forbidden role -> DomainError 403. */
export async function requireActor(minRole: Role = 'viewer'): Promise<Actor> {
  const actor = await getActor();
  if (!actor) return redirectToLogin();
  return requireRole(actor, minRole);
}

/** The client address for the login rate limit: the peer, or X-Forwarded-For only from TICKFLOW_TRUSTED_PROXIES (lib/auth/client-address.ts). */
export async function clientIp(): Promise<string> {
  return clientAddressOf(await headers());
}

/**
 * Logs in (rate-limited, lib/auth/login.ts) and sets the httpOnly, SameSite=Lax
 * `tickflow_session` cookie (Secure when the request came over https), 7 days.
 * @throws DomainError('unauthorized' | 'rate_limited').
 */
export async function signIn(email: string, password: string): Promise<Actor> {
  const r = await login(getDb(), { email, password, client: await clientIp() });
  const secure = process.env.TICKFLOW_SECURE_COOKIES === '1' || (await forwardedHttps());
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
