import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN, E2E_VIEWER } from './helpers/env.ts';

// The stats day zone (docs/scheduling.md "Stats day zone"): an admin changes it in
// Settings -> Stats day (the table is rebuilt), a viewer only reads it. The zone is
// put back to UTC so that other specs keep their UTC days.

test('an admin changes the stats day zone; a viewer cannot', async ({ page, browser }) => {
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.goto('/settings/stats');
  const form = page.getByTestId('stats-zone-form');
  await expect(page.getByText('Current: UTC.', { exact: false })).toBeVisible();
  await form.getByLabel('Time zone').fill('Mars/Olympus');
  await form.getByLabel('Time zone').press('Escape');
  await form.getByRole('button', { name: 'Save and rebuild' }).click();
  await expect(form.getByText('Unknown time zone')).toBeVisible();

  await form.getByLabel('Time zone').fill('Asia/Shanghai');

  await form.getByLabel('Time zone').press('Escape');
  await form.getByRole('button', { name: 'Save and rebuild' }).click();
  await expect(page.getByText('Stats days are now cut in Asia/Shanghai', { exact: false })).toBeVisible();
  await page.goto('/stats');
  await expect(page.getByTestId('stats-scope')).toContainText('Daily outcomes (days in Asia/Shanghai)');

  const ctx = await browser.newContext();
  const viewer = await ctx.newPage();
  try {
    await login(viewer, E2E_VIEWER.email, E2E_VIEWER.password);
    await viewer.goto('/settings/stats');
    await expect(viewer.getByText('Only admins change the stats day zone.')).toBeVisible();
    await expect(viewer.getByTestId('stats-zone-form')).toHaveCount(0);
  } finally {
    await ctx.close();
  }

  await page.goto('/settings/stats');
  await page.getByTestId('stats-zone-form').getByLabel('Time zone').fill('UTC');
  await page.getByTestId('stats-zone-form').getByLabel('Time zone').press('Escape');
  await page.getByTestId('stats-zone-form').getByRole('button', { name: 'Save and rebuild' }).click();
  await expect(page.getByText('Stats days are now cut in UTC', { exact: false })).toBeVisible();
});

test('bad request lines answer 400 / 405 before Next, pages and API, without a session', async ({ request }) => {
  for (const path of ['/api/v1/jobs/%ff', '/api/v1/runs/%c3%28/cancel', '/jobs/%ff', '/runs/%ff']) {
    const r = await request.get(path, { maxRedirects: 0 });
    expect(r.status(), path).toBe(400);
  }
  // bytes that are not UTF-8 in a query: Next would hand the route U+FFFD in their place (lib/infra/http-guard.ts)
  for (const path of ['/api/v1/logs/search?q=%ED%A0%80abc', '/api/v1/jobs?q=a%C3', '/runs?jobId=%FF']) {
    const r = await request.get(path, { maxRedirects: 0 });
    expect(r.status(), path).toBe(400);
    if (path.startsWith('/api/')) expect(Object.keys((await r.json()).error.fields), path).toEqual([path.includes('jobId') ? 'jobId' : 'q']);
  }
  const api = await request.fetch('/api/v1/jobs', { method: 'TRACE' });
  expect(api.status()).toBe(405);
  expect(api.headers().allow).toBe('GET, HEAD, OPTIONS, POST');
  expect((await api.json()).error.code).toBe('method_not_allowed');
  const page = await request.fetch('/jobs', { method: 'TRACE', maxRedirects: 0 });
  expect(page.status()).toBe(405);
});
