import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// An edit in the console can say why: the reason is stored on the new version and shown in the Versions tab.

test('the reason typed with an edit appears in the job versions', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.reason.${Date.now().toString(36)}`, name: 'Before', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await login(page);
  await page.goto(`/jobs/${job.id}/edit`);
  await page.getByLabel('Name').fill('After');
  await page.getByLabel('Reason for this change').fill('rename for the Q4 audit');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}(\\?|$)`));
  await page.goto(`/jobs/${job.id}?tab=versions`);
  await expect(page.getByRole('row').filter({ hasText: 'rename for the Q4 audit' })).toBeVisible();
  const versions = await api<{ items?: { reason: string | null }[] } | { reason: string | null }[]>('GET', `/jobs/${job.id}/versions`);
  const list = Array.isArray(versions) ? versions : (versions.items ?? []);
  expect(list.map((v) => v.reason)).toContain('rename for the Q4 audit');
});

test('390 px: the edit form\'s save bar keeps the version, the Reason field, Cancel and Save on the screen', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.reason.narrow.${Date.now().toString(36)}`, name: 'Narrow', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.setViewportSize({ width: 390, height: 844 });
  await login(page);
  await page.goto(`/jobs/${job.id}/edit`);
  const bar = page.getByTestId('form-save-bar');
  await expect(bar).toBeVisible();
  for (const el of [bar.getByText(/^Editing version \d+$/), bar.getByText('Reason', { exact: true }), page.getByLabel('Reason for this change'), bar.getByRole('link', { name: 'Cancel' }), bar.getByRole('button', { name: 'Save', exact: true })]) {
    await expect(el).toBeVisible();
    const b = (await el.boundingBox())!;
    expect(b.x, (await el.textContent()) ?? "").toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(390);
  }
  // the field is wide enough to read what is typed
  expect((await page.getByLabel('Reason for this change').boundingBox())!.width).toBeGreaterThan(200);
  await bar.screenshot({ path: test.info().outputPath('save-bar-390.png') });
});
