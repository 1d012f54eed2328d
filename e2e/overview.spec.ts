import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The overview answers "what is running now, and what fires next": running tasks with job name, step, worker and
// a live elapsed time; the next 24 hours of fires on a time axis; failures by job name; outcome counts with skipped.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Run = { id: string; status: string };

test('running now, next fires, failures by name and outcome counts', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const sleeper = await api<{ id: string }>('POST', '/jobs', { key: `e2e.ov.sleep.${uniq()}`, name: 'Slow import', schedule: { kind: 'manual' }, handler: 'builtin.sleep', payload: { ms: 25_000 } });
  const hourlyKey = `e2e.ov.hourly.${uniq()}`;
  // Hourly at the Kolkata minute that is 30 minutes from now (Kolkata is UTC+5:30, so it is the current UTC minute):
  // no fire of it falls while the test runs. On the hour it could: within the worker's look-ahead (3 s) before the
  // slot, the run is created ahead and the next fire moves on an hour, leaving 23 fires in the next 24 h, not 24.
  const hourlyMinute = new Date().getUTCMinutes();
  await api('POST', '/jobs', { key: hourlyKey, name: 'Hourly sync', schedule: { kind: 'cron', cron: `${hourlyMinute} * * * *`, timezone: 'Asia/Kolkata' }, handler: 'builtin.noop' });
  const failing = await api<{ id: string }>('POST', '/jobs', { key: `e2e.ov.fail.${uniq()}`, name: 'Broken report', schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message: 'disk full' } });
  const bad = await api<Run>('POST', `/jobs/${failing.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${bad.id}`)).status, { timeout: 30_000 }).toBe('failed');
  const slow = await api<Run>('POST', `/jobs/${sleeper.id}/trigger`, {});
  await expect.poll(async () => (await api<Run>('GET', `/runs/${slow.id}`)).status, { timeout: 30_000 }).toBe('running');

  await login(page);
  await page.goto('/');
  // Running now: the job by name, its step, the worker, and an elapsed time that moves on by itself.
  const running = page.getByTestId('running-row').filter({ hasText: 'Slow import' });
  await expect(running).toBeVisible();
  await expect(running).toContainText('main');
  await expect(running.locator('td').nth(2)).not.toHaveText('—');
  const elapsed = running.locator('td').nth(3);
  await expect(elapsed).toHaveText(/\d/);
  const first = await elapsed.textContent();
  await expect(elapsed).not.toHaveText(first!, { timeout: 15_000 });

  // The card's caption counts in plain words: "N fires from M jobs in the next 24 h".
  await expect(page.getByTestId('next-fires-caption')).toHaveText(/^(Over )?\d+ fires from \d+ jobs in the next 24 h \(axis in \S+\)$/);
  // Next 24 hours: the hourly job fires 24 times, its next fire some 30 minutes away.
  const hourly = page.getByTestId('next-fire-row').filter({ hasText: 'Hourly sync' });
  await expect(hourly).toBeVisible();
  await expect(hourly.getByTestId('next-fire-dot')).toHaveCount(24);
  // The count beside the next fire reads whole, never clipped by the narrow name column.
  const summary = hourly.getByTestId('next-fire-summary');
  await expect(summary).toContainText('· 24 in 24 h');
  // The job's own next fire is written in the job's zone, as on the jobs list: at its minute in Kolkata, labelled UTC+5:30.
  await expect(summary).toContainText(new RegExp(`next \\d{4}-\\d{2}-\\d{2} \\d{2}:${String(hourlyMinute).padStart(2, '0')} UTC\\+5:30`));
  expect(await summary.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);

  // Failures by name, outcome counts with skipped shown.
  await expect(page.getByTestId('latest-failures')).toContainText('Broken report');
  await expect(page.getByTestId('outcome-counts')).toContainText(/\d+ skipped/);
  await page.screenshot({ path: 'e2e/__screenshots__/overview.png', fullPage: true });

  // Once the run is over it leaves the running list without a reload.
  await api('POST', `/runs/${slow.id}/cancel`, {});
  await expect(running).toHaveCount(0, { timeout: 15_000 });
});
