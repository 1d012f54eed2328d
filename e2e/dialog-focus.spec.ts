import { expect, test, type Locator, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// A keyboard user never loses their place: a dialog opened by a button (with or without a Radix Trigger) gives the
// focus back to that button when it closes, and when the action replaced the button (Pause by Resume, Cancel run by
// Retry run, Acknowledge by the acknowledgement) the focus goes to the control that took its place, never to <body>.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

/** The focused element's accessible-ish name: its aria-label, else its text, else its id; `BODY` when nothing has focus. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const a = document.activeElement;
    if (!a || a === document.body) return 'BODY';
    return (a.getAttribute('aria-label') ?? a.textContent?.trim() ?? a.id) || a.tagName;
  });

async function expectFocused(page: Page, target: Locator): Promise<void> {
  await expect(target).toBeFocused();
}

/**
 * Waits until a closed dialog is gone and has given the focus back. Radix gives it back from a zero-delay timer
 * queued when the dialog unmounts (after the focus keeper, components/ui/focus-return.ts, may already have put
 * it there): a test that moves the focus elsewhere before that timer ran has it taken back. A zero-delay timer
 * queued now runs after it; nothing is waited for by the clock.
 */
async function dialogGone(page: Page): Promise<void> {
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

test('job page: Run with payload opens in the payload box and gives the focus back on Escape and Cancel; Pause hands it to Resume and back', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.focus.${uniq()}`, name: 'Focus', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.goto(`/jobs/${job.id}`);
  const more = page.getByRole('button', { name: 'Run with payload…' });
  await more.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog');
  await expect(dialog).toBeVisible();
  await expect(dialog.getByLabel('Payload override')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expectFocused(page, more);

  await page.keyboard.press('Enter');
  await expect(dialog.getByLabel('Payload override')).toBeFocused();
  await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
  await expect(dialog).toBeHidden();
  await expectFocused(page, more);

  const pause = page.getByRole('button', { name: 'Pause', exact: true });
  await pause.focus();
  await page.keyboard.press('Enter');
  const resume = page.getByRole('button', { name: 'Resume', exact: true });
  await expect(resume).toBeVisible();
  await expectFocused(page, resume);
  await page.keyboard.press('Enter');
  await expect(pause).toBeVisible();
  await expectFocused(page, pause);
  expect(await focused(page)).not.toBe('BODY');
});

test('run page: confirming Cancel run hands the focus to Retry run; Keep running gives it back to Cancel run', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.focus.cancel.${uniq()}`, name: 'Sleeper', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 120000 } });
  const runId = (await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {})).id;
  await page.goto(`/runs/${runId}`);
  const cancel = page.getByRole('button', { name: 'Cancel run' });
  await cancel.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('alertdialog');
  await dialog.getByRole('button', { name: 'Keep running' }).click();
  await expectFocused(page, cancel);
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Cancel run' }).click();
  await expect(page.getByTestId('run-status')).toHaveText('cancelled', { timeout: 15_000 });
  await expectFocused(page, page.getByRole('button', { name: 'Retry run' }));
});

test('alarms: Acknowledge and Silence give the focus back to their row on Close and Escape, and after acknowledging', async ({ page }) => {
  test.setTimeout(120_000);
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.focus.alarm.${uniq()}`,
    name: 'Focus alarm',
    schedule: { kind: 'manual' },
    handler: 'builtin.fail',
    payload: { message: 'upstream down' },
    policy: { maxRetries: 0 },
    alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] },
  });
  await api('POST', `/jobs/${job.id}/trigger`, {});
  await page.goto(`/alarms?jobId=${job.id}`);
  const row = page.getByTestId('alarm-row').first();
  await expect(row).toBeVisible({ timeout: 45_000 });
  const dialog = page.getByRole('dialog');

  const ack = row.getByRole('button', { name: 'Acknowledge' });
  await ack.focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByLabel('Note (optional)')).toBeFocused();
  await page.keyboard.press('Escape');
  await dialogGone(page);
  await expectFocused(page, ack);
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
  await dialogGone(page);
  await expectFocused(page, ack);

  const silence = row.getByRole('button', { name: /^Silence/ });
  await silence.focus();
  await expectFocused(page, silence);
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await dialogGone(page);
  await expectFocused(page, silence);

  // Acknowledging removes the button: the focus goes to the row's other action, not to the page.
  await ack.focus();
  await expectFocused(page, ack);
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(row.getByTestId('alarm-ack')).toBeVisible();
  await expectFocused(page, silence);
});
