import { expect, test } from '@playwright/test';
import { login, gotoHydrated } from './helpers/auth.ts';
import { api, triggerJob } from './helpers/api.ts';
import { E2E_VIEWER } from './helpers/env.ts';

// A viewer sees every mutating control disabled (tooltip "Viewer role: read only"), and the
// server refuses the mutation anyway (docs/security.md).

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('a viewer finds every mutating control disabled and mutating requests refused', async ({ page }) => {
  const key = `e2e.viewer.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: 'Viewer target', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const runId = await triggerJob(job.id);
  // A run that is still going: Cancel run is shown only for a pending or running run.
  const sleeper = await api<{ id: string }>('POST', '/jobs', { key: `e2e.viewsleep.${uniq()}`, name: 'Viewer sleeper', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 120000 } });
  const activeRunId = await triggerJob(sleeper.id);
  const binned = await api<{ id: string; key: string }>('POST', '/jobs', { key: `${key}.bin`, name: 'Viewer bin', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await api('DELETE', `/jobs/${binned.id}`);

  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  await expect(page.getByTestId('current-role')).toHaveText('viewer');
  await expect(page.getByRole('link', { name: 'Users' })).toHaveCount(0);

  // Jobs list: New job and the bulk bar.
  await page.goto(`/jobs?q=${encodeURIComponent(key)}`);
  await expect(page.getByRole('button', { name: 'New job' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Import crontab' })).toBeDisabled();
  await page.getByRole('checkbox', { name: `Select ${key}` }).check();
  const bulk = page.getByRole('toolbar', { name: 'Bulk actions' });
  for (const name of ['Pause', 'Resume', 'Delete']) await expect(bulk.getByRole('button', { name })).toBeDisabled();

  // Job page.
  await page.goto(`/jobs/${job.id}`);
  for (const name of ['Run now', 'Pause', 'Edit', 'Delete']) await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
  await expect(page.locator('[title="Viewer role: read only"]').first()).toBeVisible();
  // a disabled control's own title (what it does) would show on hover in place of the reason: none keeps one
  await expect(page.getByRole('button', { name: 'Run with payload…' })).toBeDisabled();
  await expect(page.locator('main button[disabled][title]')).toHaveCount(0);

  // Create form is not offered.
  await gotoHydrated(page, '/jobs/new');
  await expect(page.getByText('Viewer role: read only')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Create job' })).toHaveCount(0);
  await page.goto('/jobs/import');
  await expect(page.getByText('Viewer role: read only')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Import' })).toHaveCount(0);

  // Run page.
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Retry run' })).toBeDisabled();
  // every disabled control says why (components/ui/disabled-reason.tsx): a sample
  await expect(page.getByRole('button', { name: 'Retry run' })).toHaveAccessibleDescription('Viewer role: read only');
  await page.goto(`/runs/${activeRunId}`);
  await expect(page.getByTestId('run-status')).toHaveText(/running|pending/);
  await expect(page.getByRole('button', { name: 'Cancel run' })).toBeDisabled();
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveAccessibleDescription('Viewer role: read only');

  // Recycle bin.
  await page.goto(`/recycle-bin?q=${encodeURIComponent(binned.key)}`);
  const row = page.locator(`[data-testid="recycle-bin-row"][data-job-key="${binned.key}"]`);
  await expect(row.getByRole('button', { name: 'Restore' })).toBeDisabled();
  await expect(row.getByRole('button', { name: 'Purge' })).toBeDisabled();
  await expect(row.getByRole('button', { name: 'Restore' })).toHaveAccessibleDescription('Viewer role: read only');

  // The server refuses too (same session cookie, REST door).
  for (const [method, path] of [
    ['POST', `/api/v1/jobs/${job.id}/pause`],
    ['POST', `/api/v1/jobs/${job.id}/trigger`],
    ['DELETE', `/api/v1/jobs/${job.id}`],
    ['POST', `/api/v1/jobs/${binned.id}/restore`],
    ['POST', `/api/v1/runs/${runId}/retry`],
  ] as const) {
    const res = await page.request.fetch(path, { method, data: {} });
    expect(res.status(), `${method} ${path}`).toBe(403);
  }
  const after = await api<{ status: string; deletedAt: string | null }>('GET', `/jobs/${job.id}`);
  expect(after.status).toBe('active');
  expect(after.deletedAt).toBeNull();
});
