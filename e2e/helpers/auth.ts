import { expect, type Page } from '@playwright/test';
import { E2E_OPERATOR } from './env.ts';

/** Signs in through the login form; defaults to the e2e operator account. */
export async function login(page: Page, email = E2E_OPERATOR.email, password = E2E_OPERATOR.password): Promise<void> {
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
