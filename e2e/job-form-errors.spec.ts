import { expect, test } from '@playwright/test';
import { login, gotoHydrated } from './helpers/auth.ts';

// The new-job form names what is wrong with each field in plain words: an empty required field says it is required
// (Key as Name does), and only a key that was typed wrong quotes the key's character rules.

test('an empty Key says "Key is required", as an empty Name does; a bad key quotes the rules', async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/jobs/new');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByTestId('field-error-key')).toHaveText('Key is required');
  await expect(page.getByTestId('field-error-name')).toHaveText('Name is required');
  await page.getByLabel('Key', { exact: true }).fill('-starts with a dash');
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByTestId('field-error-key')).toContainText('Key must be 1-128 characters');
});
