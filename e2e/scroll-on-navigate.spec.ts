import { expect, test, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { gotoHydrated, login } from './helpers/auth.ts';

// The console scrolls in its <main>, not in the window: a new page opens at its top, its header whole
// (components/shell/scroll-to-top.tsx). Next's router reset only the window, then scrolled the new page's first element
// to <main>'s top: the job page opened from the bottom of the job form with its title cut off.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const mainScrollTop = (page: Page) => page.locator('#main').evaluate((m) => m.scrollTop);

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

for (const leave of ['Cancel', 'Save'] as const) {
  test(`${leave} at the bottom of the job form opens the job page at its top`, async ({ page }) => {
    const job = await api<{ id: string; key: string }>('POST', '/jobs', { key: `e2e.scroll.${uniq()}`, name: 'Scroll', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
    await gotoHydrated(page, `/jobs/${job.id}/edit`);
    if (leave === 'Save') await page.getByLabel('Name').fill('Scroll, renamed');
    await page.locator('#main').evaluate((m) => m.scrollTo(0, m.scrollHeight));
    await expect.poll(() => mainScrollTop(page)).toBeGreaterThan(200);
    if (leave === 'Cancel') await page.getByRole('link', { name: 'Cancel' }).click();
    else await page.getByRole('button', { name: 'Save' }).click();
    await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
    await expect(page.getByRole('heading', { level: 1 })).toContainText(job.key);
    await expect.poll(() => mainScrollTop(page)).toBe(0);
  });
}

test('switching a job page tab keeps the scroll (the query alone changes)', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.scroll.tabs.${uniq()}`, name: 'Tabs', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.setViewportSize({ width: 1440, height: 400 });
  await gotoHydrated(page, `/jobs/${job.id}`);
  await page.locator('#main').evaluate((m) => m.scrollTo(0, 60));
  await expect.poll(() => mainScrollTop(page)).toBe(60);
  await page.getByRole('tab', { name: 'Versions' }).click();
  await expect(page).toHaveURL(/tab=versions/);
  expect(await mainScrollTop(page)).toBeGreaterThan(0);
});
