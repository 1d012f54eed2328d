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
  const keyLink = page.locator(`[data-testid="recycle-bin-row"][data-job-key="${key}"]`).getByRole('link', { name: key });
  // the key looks like the link it is, as on the jobs list
  await expect(keyLink).toHaveClass(/text-indigo-700/);
  await keyLink.click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}`));
  await expect(page.getByTestId('deleted-job-notice')).toContainText('read only');
  // no failed run: "0 failed" is not written in red, as if there were one to look at
  await expect(page.getByTestId('job-failed-runs')).toHaveText('0 failed');
  await expect(page.getByTestId('job-failed-runs')).not.toHaveClass(/text-red/);
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

test('a deleted cron job does not look scheduled: deleted is its state, no next fire, and its fire times say none fires', async ({ page }) => {
  const key = `e2e.bin.cron.${uniq()}`;
  const job = await api<{ id: string; nextRunAt: string | null }>('POST', '/jobs', { key, name: 'Binned cron job', schedule: { kind: 'cron', cron: '0 3 * * *', timezone: 'UTC' }, handler: 'builtin.noop' });
  expect(job.nextRunAt).not.toBeNull();
  await api('DELETE', `/jobs/${job.id}`);
  // The REST view: a deleted job has no next fire (the tick skips it until it is restored).
  expect((await api<{ nextRunAt: string | null; deletedAt: string | null }>('GET', `/jobs/${job.id}`)).nextRunAt).toBeNull();

  await login(page);
  await page.goto(`/jobs/${job.id}`);
  await expect(page.getByTestId('deleted-job-notice')).toBeVisible();
  // One state in the header: deleted, not "active" beside it.
  await expect(page.getByTestId('job-status')).toHaveText('deleted');
  await expect(page.getByRole('heading', { level: 1 }).getByText('active', { exact: true })).toHaveCount(0);
  await expect(page.locator('dt', { hasText: 'Next fire' }).locator('xpath=following-sibling::dd[1]')).toHaveText('— (deleted)');
  await expect(page.getByTestId('fire-times-heading')).toHaveText(/the job is deleted: none of them fires until it is restored/);
});

test('a once job whose run-at passed in the recycle bin is restored paused, and the toast and its page say why', async ({ page }) => {
  const key = `e2e.bin.once.${uniq()}`;
  // its run-at beyond the workers' look-ahead (3 s), so that the delete comes before any run is created for it
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: 'Binned once job', schedule: { kind: 'once', runAt: new Date(Date.now() + 8_000).toISOString() }, handler: 'builtin.noop' });
  await api('DELETE', `/jobs/${job.id}`);
  await new Promise((r) => setTimeout(r, 9_000));

  await login(page);
  await page.goto(`/jobs/${job.id}`);
  await page.getByRole('button', { name: 'Restore' }).click();
  const notice = 'Restored paused: schedule.runAt: Is in the past: this job would never fire; change its schedule, then resume it';
  await expect(page.getByText(`${key} restored, paused`)).toBeVisible();
  await expect(page.getByText(notice).first()).toBeVisible();
  await expect(page.getByTestId('deleted-job-notice')).toHaveCount(0);
  await expect(page.getByTestId('job-status')).toHaveText('paused');
  expect(await api<{ status: string; nextRunAt: string | null; lastError: string }>('GET', `/jobs/${job.id}`)).toMatchObject({ status: 'paused', nextRunAt: null, lastError: notice });
  // paused by its ended schedule, not by an operator: said beside the status, here and in the jobs list
  await expect(page.getByTestId('schedule-ended')).toHaveText('schedule ended');
  await page.goto(`/jobs?q=${encodeURIComponent(key)}`);
  await expect(page.getByTestId('jobs-table').locator('tbody tr', { hasText: key }).getByTestId('schedule-ended')).toBeVisible();
});
