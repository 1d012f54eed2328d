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
