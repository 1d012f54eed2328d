import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';

// Keyboard shortcuts: `/` focuses the page's search box, `?` opens the list of shortcuts; typing those characters
// into a field types them.

test('/ focuses search, ? shows the shortcuts, and both are plain characters inside a field', async ({ page }) => {
  await login(page);
  await page.goto('/jobs');
  const search = page.getByRole('searchbox').first();
  await expect(search).not.toBeFocused();
  await page.getByRole('heading', { name: 'Jobs', exact: true }).click();
  await page.keyboard.press('/');
  await expect(search).toBeFocused();
  await page.keyboard.type('a/b?');
  await expect(search).toHaveValue('a/b?');
  await expect(page.getByTestId('shortcuts-help')).toHaveCount(0);
  await search.blur();
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-help')).toBeVisible();
  await expect(page.getByTestId('shortcuts-help')).toContainText('Ctrl+Z');
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-help')).toHaveCount(0);
});
