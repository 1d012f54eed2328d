import { expect, type Page } from '@playwright/test';
import { createSession, SESSION_COOKIE } from '../../lib/auth/sessions.ts';
import { createPrismaClient, type PrismaClient } from '../../lib/db.ts';
import { E2E_ADMIN, E2E_BASE_URL, E2E_OPERATOR, E2E_VIEWER, E2E_ZONE_VIEWER } from './env.ts';

const ACCOUNTS = [E2E_ADMIN, E2E_OPERATOR, E2E_VIEWER, E2E_ZONE_VIEWER];

let db: PrismaClient | undefined;

/** One small client per Playwright worker process, for the sessions `login` creates. */
function database(): PrismaClient {
  const url = process.env.E2E_DATABASE_URL;
  if (!url) throw new Error('E2E_DATABASE_URL is not set (e2e/global-setup.ts sets it)');
  db ??= createPrismaClient(url, 1);
  return db;
}

/**
 * Signs in as one of the e2e accounts (e2e/helpers/env.ts; defaults to the operator) and lands on the
 * overview, as the login form does. For those accounts the session is created the way the login
 * action creates it (lib/auth/sessions.ts createSession) and set as the browser's cookie: signing in
 * through the form costs about 2 s of password hashing and page renders per test, and the form itself
 * is the subject of the tests that call `loginThroughForm` (admin, users-admin, security, many-machines).
 * Any other email and password go through the form.
 */
export async function login(page: Page, email = E2E_OPERATOR.email, password = E2E_OPERATOR.password): Promise<void> {
  if (!ACCOUNTS.some((a) => a.email === email && a.password === password)) return loginThroughForm(page, email, password);
  const user = await database().user.findUniqueOrThrow({ where: { email } });
  const session = await createSession(database(), user.id);
  // Cookies are kept per host, not per port: the session holds for every console on 127.0.0.1 (many-machines).
  await page.context().addCookies([
    { name: SESSION_COOKIE, value: session.id, url: E2E_BASE_URL, httpOnly: true, sameSite: 'Lax', expires: Math.floor(session.expiresAt.getTime() / 1000) },
  ]);
  await page.goto('/');
  await expect(page).not.toHaveURL(/\/login/);
}

/** Signs in through the login form: the tests whose subject is signing in, and accounts made by a test. */
export async function loginThroughForm(page: Page, email = E2E_OPERATOR.email, password = E2E_OPERATOR.password): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/**
 * Opens `path` and waits until React has hydrated it (components/providers.tsx marks <html data-hydrated>):
 * what a test types before that can be replaced by the page's first client state (the job form's time zone
 * follows the display zone once hydrated).
 */
export async function gotoHydrated(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' });
}
