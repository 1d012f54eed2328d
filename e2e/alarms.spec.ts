import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_OPERATOR, E2E_VIEWER } from './helpers/env.ts';

// Alarms as an operator handles them: a failing job's alarm shows up on the alarms page by itself
// (live refresh), gets acknowledged with a note, the job is silenced for an hour (the next failure
// is recorded as silenced, not sent), then unsilenced. A viewer sees the controls disabled with the reason.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Alarm = { id: string; status: string; jobId: string | null };

test('an operator acknowledges an alarm, silences its job, sees the next one silenced live, and unsilences', async ({ page }) => {
  test.setTimeout(120_000);
  const key = `e2e.alarms.${uniq()}`;
  const job = await api<{ id: string }>('POST', '/jobs', {
    key,
    name: 'Alarming job',
    schedule: { kind: 'manual' },
    handler: 'builtin.fail',
    payload: { message: 'upstream down' },
    policy: { maxRetries: 0 },
    alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] },
  });
  const alarmsOf = async () => (await api<{ items: Alarm[] }>('GET', `/alarms?jobId=${job.id}`)).items;

  await login(page);
  await page.goto(`/alarms?jobId=${job.id}`);
  await expect(page.getByText('No alarms match these filters')).toBeVisible();

  // the first failure: its alarm appears without a reload and is delivered (log channel)
  await api('POST', `/jobs/${job.id}/trigger`, {});
  const rows = page.getByTestId('alarm-row');
  await expect(rows).toHaveCount(1, { timeout: 45_000 });
  await expect(rows.first().getByTestId('alarm-status')).toHaveText('sent', { timeout: 30_000 });

  // acknowledge with a note
  await rows.first().getByRole('button', { name: 'Acknowledge' }).click();
  await page.getByLabel('Note (optional)').fill('on it: upstream outage');
  await page.getByRole('dialog').getByRole('button', { name: 'Acknowledge' }).click();
  await expect(page.getByText('Alarm acknowledged')).toBeVisible();
  const ack = rows.first().getByTestId('alarm-ack');
  await expect(ack).toContainText(E2E_OPERATOR.email);
  await expect(ack).toContainText('on it: upstream outage');

  // silence every alarm of this job for 1 hour
  await rows.first().getByRole('button', { name: /Silence/ }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('radio', { name: /every alarm of job/ }).check();
  await dialog.getByRole('radio', { name: '1 hour' }).check();
  await dialog.getByLabel('Note (optional)').fill('maintenance window');
  await dialog.getByRole('button', { name: 'Silence' }).click();
  const silences = page.getByTestId('silences');
  await expect(silences.getByTestId('silence-row')).toHaveCount(1);
  await expect(silences).toContainText(`every alarm of job ${key}`);
  await expect(silences).toContainText(`by ${E2E_OPERATOR.email}`);
  await expect(silences).toContainText('maintenance window');

  // the next failure is recorded but not sent: it shows up silenced, live
  await api('POST', `/jobs/${job.id}/trigger`, {});
  await expect(rows).toHaveCount(2, { timeout: 45_000 });
  await expect(rows.first().getByTestId('alarm-status')).toHaveText('silenced', { timeout: 30_000 });
  await expect(rows.first()).toContainText(`silenced by ${E2E_OPERATOR.email}`);
  expect((await alarmsOf()).map((a) => a.status)).toEqual(['silenced', 'sent']);
  await page.screenshot({ path: 'e2e/__screenshots__/alarms-ack-silence.png', fullPage: true });

  // unsilence: the panel goes away
  await silences.getByRole('button', { name: 'Unsilence' }).click();
  await expect(page.getByText('Unsilenced')).toBeVisible();
  await expect(page.getByTestId('silences')).toHaveCount(0);
  expect((await api<{ items: unknown[] }>('GET', '/alarms/silences')).items.filter((s) => (s as { jobId: string }).jobId === job.id)).toEqual([]);
});

test('a viewer sees Acknowledge and Silence disabled, with the reason', async ({ page }) => {
  const alarms = await api<{ items: Alarm[] }>('GET', '/alarms?limit=1');
  if (alarms.items.length === 0) await api('POST', '/alarms/test', { channel: { type: 'log', target: '' } });
  await login(page, E2E_VIEWER.email, E2E_VIEWER.password);
  await page.goto('/alarms');
  const row = page.getByTestId('alarm-row').first();
  await expect(row).toBeVisible();
  const silence = row.getByRole('button', { name: /Silence/ });
  await expect(silence).toBeDisabled();
  await expect(silence).toHaveAccessibleDescription('Viewer role: read only');
});

test('a filter the list does not know is refused by name, not dropped into an unfiltered list; its picker shows the refused value', async ({ page }) => {
  await login(page);
  for (const [qs, field] of [['status=pendng', 'status'], ['type=failed', 'type'], ['before=yesterday', 'before']] as const) {
    await page.goto(`/alarms?${qs}`);
    await expect(page.getByRole('alert').filter({ hasText: field })).toBeVisible();
    await expect(page.getByTestId('alarm-row')).toHaveCount(0);
  }
  // Each picker shows what the URL asked for, marked refused beside the error, never "All" (components/filter-bar.tsx).
  for (const [qs, label, value] of [['status=pendng', 'Status', 'pendng'], ['type=failed', 'Type', 'failed'], ['jobId=nightly-export', 'Job', 'nightly-export']] as const) {
    await page.goto(`/alarms?${qs}`);
    // the error names the filter by its label, as the filter bar does
    await expect(page.getByRole('alert').filter({ hasText: `${label}: ` })).toBeVisible();
    const picker = page.getByLabel(label, { exact: true });
    await expect(picker, qs).toHaveValue(value);
    await expect(picker, qs).toHaveAttribute('aria-invalid', 'true');
    await expect(picker, qs).toHaveAccessibleDescription(/^refused/);
    await expect(page.getByTestId('filter-refused'), qs).toHaveCount(1);
    if (label !== 'Job') await expect(picker.locator('option:checked'), qs).toHaveText(value);
  }
  // `before` is paging, not a picker: only the error names it.
  await page.goto('/alarms?before=yesterday');
  await expect(page.getByRole('alert').filter({ hasText: 'before' })).toBeVisible();
  await expect(page.getByTestId('filter-refused')).toHaveCount(0);
  await expect(page.getByLabel('Status', { exact: true })).toHaveValue('');
  // A value picked after a refusal is asked for afresh: the mark goes with the refused value.
  await page.goto('/alarms?status=pendng');
  await page.getByLabel('Status', { exact: true }).selectOption('sent');
  await expect(page).toHaveURL(/status=sent/);
  await expect(page.getByTestId('filter-refused')).toHaveCount(0);
  await expect(page.getByLabel('Status', { exact: true })).not.toHaveAttribute('aria-invalid', 'true');
});

test('a long alarm message is clamped to two lines with the whole text on hover; Silence is named by the alarm\'s type and job', async ({ page }) => {
  test.setTimeout(120_000);
  const key = `e2e.alarms.long.${uniq()}`;
  const message = `the ledger service answered 503 ${'and kept answering 503 '.repeat(20)}until we gave up`;
  const job = await api<{ id: string }>('POST', '/jobs', {
    key,
    name: 'Long alarm message',
    schedule: { kind: 'manual' },
    handler: 'builtin.fail',
    payload: { message },
    policy: { maxRetries: 0 },
    alarms: { onFailure: true, channels: [{ type: 'log', target: '' }] },
  });
  await api('POST', `/jobs/${job.id}/trigger`, {});
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
  await page.goto(`/alarms?jobId=${job.id}`);
  const row = page.getByTestId('alarm-row').first();
  await expect(row).toBeVisible({ timeout: 45_000 });
  const alarmId = await row.getAttribute('data-alarm-id');
  const cell = row.getByTestId('alarm-message');
  // clamped on screen, whole in the tooltip
  expect(await cell.evaluate((e) => e.scrollHeight > e.clientHeight + 1)).toBe(true);
  expect(await cell.getAttribute('title')).toContain(message);
  // the Silence button is named by what the row shows, never by the alarm's id
  const silence = row.getByRole('button', { name: `Silence… failure alarms of job ${key}`, exact: true });
  await expect(silence).toBeVisible();
  expect(await silence.getAttribute('aria-label')).not.toContain(alarmId!);
});
