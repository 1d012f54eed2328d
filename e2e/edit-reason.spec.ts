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
