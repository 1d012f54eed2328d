import { expect, test } from '@playwright/test';
import { api, runReaches } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// Theme: Light / Dark / System in the top bar, remembered per browser (cookie read by the server:
// the first paint is already dark, no flash), covering pages, charts and the React Flow canvas.

const bg = (page: import('@playwright/test').Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
/** Relative luminance of an `rgb()`/`oklch()` colour as the browser computes it, via a canvas. */
const luminance = (page: import('@playwright/test').Page, color: string) =>
  page.evaluate((c) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.fillStyle = c;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
  }, color);

test('dark theme is chosen in the top bar, survives a reload without a flash, and follows the system when asked', async ({ page, browser }) => {
  const dag = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.theme.${Date.now().toString(36)}`,
    name: 'Theme DAG',
    schedule: { kind: 'manual' },
    steps: [
      { key: 'a', handler: 'builtin.noop' },
      { key: 'b', handler: 'builtin.noop' },
    ],
    edges: [{ from: 'a', to: 'b', type: 'hard' }],
  });
  await login(page);
  await page.goto('/');
  expect(await luminance(page, await bg(page))).toBeGreaterThan(0.8);

  await page.getByRole('radio', { name: 'Dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  expect(await luminance(page, await bg(page))).toBeLessThan(0.05);

  // the server renders it: the HTML itself says dark, before any script runs
  const html = await (await page.request.get('/')).text();
  expect(html).toMatch(/<html[^>]*data-theme="dark"/);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('radio', { name: 'Dark theme' })).toHaveAttribute('aria-checked', 'true');

  // state colours keep their contrast: a status badge's text against its background
  await page.goto(`/jobs/${dag.id}?tab=graph`);
  await expect(page.locator('.react-flow')).toBeVisible();
  const canvasNode = page.locator('.react-flow__node').first();
  await expect(canvasNode).toBeVisible();
  const badge = page.getByTestId('job-status');
  const [fg, back] = await badge.evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
  const [l1, l2] = [await luminance(page, fg), await luminance(page, back)];
  expect((Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05)).toBeGreaterThan(4.5);
  await page.screenshot({ path: 'e2e/__screenshots__/dark-job-graph.png' });
  await page.goto('/stats');
  await page.screenshot({ path: 'e2e/__screenshots__/dark-stats.png', fullPage: true });

  // System follows the browser's preference
  await page.getByRole('radio', { name: 'System theme' }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await luminance(page, await bg(page))).toBeLessThan(0.05);
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await luminance(page, await bg(page))).toBeGreaterThan(0.8);

  // per browser: another browser context is still light
  const other = await browser.newContext();
  const p2 = await other.newPage();
  await login(p2);
  await expect(p2.locator('html')).toHaveAttribute('data-theme', 'system');
  await other.close();
});

test('dark theme: a task\'s log lines stay a dark terminal with light text, and a dialog dims the page instead of veiling it white', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.theme.lines.${Date.now().toString(36)}`, name: 'Theme lines', schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message: 'dark terminal' } });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await runReaches(run.id, 'failed');
  await login(page);
  await page.goto('/');
  await page.getByRole('radio', { name: 'Dark theme' }).click();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  await page.goto(`/runs/${run.id}`);
  const box = page.getByTestId('task-lines').first();
  await expect(box).toContainText('dark terminal');
  const [back, fg] = await box.evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el).color]);
  // as dark as in the light theme (it used to turn into a white box on the dark page) ...
  expect(await luminance(page, back)).toBeLessThan(0.05);
  // ... with light text on it, and each line's text readable
  expect(await luminance(page, fg)).toBeGreaterThan(0.6);
  const line = box.getByText('dark terminal').first();
  const lineFg = await line.evaluate((el) => getComputedStyle(el).color);
  expect((await luminance(page, lineFg) + 0.05) / (await luminance(page, back) + 0.05)).toBeGreaterThan(4.5);
  await box.screenshot({ path: test.info().outputPath('dark-log-lines.png') });

  // a dialog's veil darkens the page (a zinc-950 veil was mirrored to near-white)
  await page.getByRole('button', { name: 'Mark success' }).first().click();
  await expect(page.getByRole('dialog')).toBeVisible();
  const veil = page.locator('[data-state="open"].fixed.inset-0').first();
  await expect(veil).toBeVisible();
  const veilColor = await veil.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await luminance(page, veilColor.replace(/,\s*[\d.]+\)$/, ')').replace('rgba', 'rgb'))).toBeLessThan(0.05);
  await page.screenshot({ path: test.info().outputPath('dark-dialog.png') });
});
