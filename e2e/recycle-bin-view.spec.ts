import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// A deleted job opens from the recycle bin read-only (definition, versions, runs), with Restore there.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('a deleted job opens read-only from the recycle bin and is restored from its page', async ({ page }) => {
  const key = `e2e.bin.view.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: 'Binned job', schedule: { kind: 'manual' }, handler: 'builtin.echo', payload: { hello: 'bin' } });
  const run = await api<{ id?: string; run?: { id: string } }>('POST', `/jobs/${job.id}/trigger`, {});
  const runId = run.run?.id ?? run.id!;
  await api('DELETE', `/jobs/${job.id}`);

  await login(page);
  await page.goto(`/recycle-bin?q=${encodeURIComponent(key)}`);
  await page.locator(`[data-testid="recycle-bin-row"][data-job-key="${key}"]`).getByRole('link', { name: key }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}`));
  await expect(page.getByTestId('deleted-job-notice')).toContainText('read only');
  // read only: no Run now / Edit / Delete; Restore and Purge instead
  await expect(page.getByRole('button', { name: 'Run now', exact: true })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Restore' })).toBeEnabled();
  await expect(page.getByRole('button', { name: 'Purge' })).toBeEnabled();
  // its definition, versions and runs
  await expect(page.getByText('builtin.echo').first()).toBeVisible();
  await page.goto(`/jobs/${job.id}?tab=versions`);
  await expect(page.getByText('v1').first()).toBeVisible();
  await page.goto(`/jobs/${job.id}?tab=runs`);
  await expect(page.locator(`a[href="/runs/${runId}"]`).first()).toBeVisible();
  await page.screenshot({ path: 'e2e/__screenshots__/recycle-bin-job-view.png', fullPage: true });

  await page.getByRole('button', { name: 'Restore' }).click();
  await expect(page.getByText(`${key} restored`)).toBeVisible();
  await expect(page.getByTestId('deleted-job-notice')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Run now', exact: true })).toBeVisible();
});
