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

test('Tab first reaches Skip to content, which takes the keyboard past the sidebar and the top bar to the page', async ({ page }) => {
  await login(page);
  await page.goto('/jobs');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeAttached();
  // hidden until focused
  expect((await skip.boundingBox())?.width ?? 0).toBeLessThanOrEqual(1);
  await page.locator('body').press('Tab');
  await expect(skip).toBeFocused();
  const box = (await skip.boundingBox())!;
  expect(box.width).toBeGreaterThan(40);
  expect(box.y).toBeGreaterThanOrEqual(0);
  await page.keyboard.press('Enter');
  // the next Tab lands on the page's first control, not on a sidebar link or the top bar
  await page.keyboard.press('Tab');
  const inMain = await page.evaluate(() => !!document.activeElement?.closest('main'));
  expect(inMain).toBe(true);
  // the page's first control: for an operator, Import crontab is disabled (admin only, lib/jobs/crontab-import-access.ts)
  // and the keyboard stops on it to read why (components/ui/disabled-reason.tsx)
  const focused = page.locator(':focus');
  await expect(focused).toContainText('Import crontab');
  await expect(focused).toHaveAttribute('title', 'Admin only');
});
