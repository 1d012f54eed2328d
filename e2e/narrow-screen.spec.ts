import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The console on a phone-sized screen (390 px): the sidebar gives its width to the page and the top
// bar's menu opens the same navigation (components/shell/mobile-nav.tsx); no page is wider than the
// screen, so nothing needs a sideways scroll of the whole page (wide tables scroll inside their card).

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page);
});

test('390 px: the menu opens the navigation, follows a link and closes; the sidebar is back at 1280 px', async ({ page }) => {
  await page.goto('/');
  const sidebar = page.locator('nav[aria-label="Main"]').first();
  await expect(sidebar).toBeHidden();
  await page.getByRole('button', { name: 'Open navigation' }).click();
  const menu = page.getByRole('dialog', { name: 'Navigation' });
  await expect(menu).toBeVisible();
  await menu.getByRole('link', { name: 'Runs' }).click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(menu).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Runs', level: 1 })).toBeVisible();

  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.getByRole('button', { name: 'Open navigation' })).toBeHidden();
  await expect(sidebar).toBeVisible();
  await expect(sidebar.getByRole('link', { name: 'Workers' })).toBeVisible();
});

test('390 px: every main page fits the screen, the top bar keeps Sign out', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.narrow.${Date.now().toString(36)}`, name: 'Narrow screen', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  for (const path of ['/', '/jobs', '/runs', '/workers', '/stats', '/alarms', '/recycle-bin', `/jobs/${job.id}`, `/runs/${run.id}`]) {
    await page.goto(path);
    await expect(page.locator('main h1').first()).toBeVisible();
    const fit = await page.evaluate(() => {
      const main = document.querySelector('main')!;
      return { pageWider: document.documentElement.scrollWidth > window.innerWidth, mainScrollsSideways: main.scrollWidth > main.clientWidth };
    });
    expect({ path, ...fit }).toEqual({ path, pageWider: false, mainScrollsSideways: false });
  }
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
});
