import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The Cancel-run dialog's buttons say what they do ("Keep running" / "Cancel run"); keeping it
// running changes nothing; cancelling it leaves the button disabled with the reason; `?` and `/`
// still work on the run page.

test('Cancel run: "Keep running" keeps it, "Cancel run" cancels it, then the button says why it is disabled', async ({ page }) => {
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
  const cancel = page.getByRole('button', { name: 'Cancel run' });
  await expect(cancel).toBeDisabled();
  await expect(cancel).toHaveAccessibleDescription('The run already finished (cancelled)');
});
