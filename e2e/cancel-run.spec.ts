import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The Cancel-run dialog's buttons say what they do ("Keep running" / "Cancel run"); keeping it
// running changes nothing; cancelling it removes the button (only a pending or running run shows it,
// at every width); `?` and `/` still work on the run page.

test('Cancel run: "Keep running" keeps it, "Cancel run" cancels it, then the button is gone', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.cancel.${Date.now().toString(36)}`, name: 'Sleeper', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 120000 } });
  const t = await api<{ id?: string; run?: { id: string } }>('POST', `/jobs/${job.id}/trigger`, {});
  const runId = t.run?.id ?? t.id!;
  await login(page);
  await page.goto(`/runs/${runId}`);
  await expect(page.getByTestId('run-status')).toHaveText(/running|pending/);

  // shortcuts still work here
  await page.getByTestId('run-status').click();
  await page.keyboard.press('?');
  await expect(page.getByTestId('shortcuts-help')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('shortcuts-help')).toHaveCount(0);

  await page.getByRole('button', { name: 'Cancel run' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog.getByRole('button', { name: 'Keep running' })).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Cancel run' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep running' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId('run-status')).toHaveText(/running|pending/);

  await page.getByRole('button', { name: 'Cancel run' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Cancel run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('cancelled', { timeout: 15_000 });
  await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Retry run' })).toBeEnabled();
});

for (const width of [390, 1280]) {
  test(`Cancel run at ${width} px: shown for a running run, absent for a finished one`, async ({ page }) => {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    const tag = Date.now().toString(36);
    const sleeper = await api<{ id: string }>('POST', '/jobs', { key: `e2e.cancel.w${width}.${tag}`, name: 'Sleeper', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 120000 } });
    const failing = await api<{ id: string }>('POST', '/jobs', { key: `e2e.cancel.f${width}.${tag}`, name: 'Fails', schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message: 'nope' }, policy: { maxRetries: 0 } });
    const running = await api<{ id?: string; run?: { id: string } }>('POST', `/jobs/${sleeper.id}/trigger`, {});
    const failed = await api<{ id?: string; run?: { id: string } }>('POST', `/jobs/${failing.id}/trigger`, {});
    await login(page);

    await page.goto(`/runs/${running.run?.id ?? running.id!}`);
    await expect(page.getByTestId('run-status')).toHaveText(/running|pending/);
    await expect(page.getByRole('button', { name: 'Cancel run' })).toBeVisible();

    await page.goto(`/runs/${failed.run?.id ?? failed.id!}`);
    await expect(page.getByTestId('run-status')).toHaveText('failed', { timeout: 20_000 });
    await expect(page.getByRole('button', { name: 'Retry run' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Cancel run' })).toHaveCount(0);
  });
}
