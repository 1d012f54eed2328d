import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login, gotoHydrated } from './helpers/auth.ts';

// A number input holding text the browser cannot read as a number (1e400 is beyond a double, '-' is unfinished) has
// the value '' like an empty one: the job form says so at the field (components/jobs/use-job-form.ts) instead of
// saving the field's default.

const uniq = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

test('an unreadable number is a field error, not the default saved', async ({ page }) => {
  await login(page);
  const key = `e2e.badnum.${uniq()}`;
  await gotoHydrated(page, '/jobs/new');
  await page.getByLabel('Key').fill(key);
  await page.getByLabel('Name').fill('Bad number');
  await page.getByRole('radio', { name: 'Manual' }).click();
  await page.getByLabel('Handler').selectOption('builtin.noop');
  await page.getByLabel('Priority').pressSequentially('1e400');
  await page.getByLabel('Timeout (seconds)').fill('');
  await page.getByLabel('Timeout (seconds)').pressSequentially('-');
  expect(await page.getByLabel('Priority').evaluate((el: HTMLInputElement) => [el.value, el.validity.badInput])).toEqual(['', true]);
  await page.getByRole('button', { name: 'Create job' }).click();
  await expect(page.getByTestId('field-error-priority')).toHaveText('Must be a number');
  await expect(page.getByTestId('field-error-timeoutSeconds')).toHaveText('Must be a number');
  // the topmost bad field (Timeout) is focused
  await expect(page.getByLabel('Timeout (seconds)')).toBeFocused();
  await expect(page).toHaveURL(/\/jobs\/new$/);
  expect((await api<{ items: unknown[] }>('GET', `/jobs?q=${key}`)).items).toEqual([]);

  // An existing job: its saved priority stays until a readable number is typed.
  const job = await api<{ id: string }>('POST', '/jobs', { key: `${key}.edit`, name: 'Edit', schedule: { kind: 'manual' }, handler: 'builtin.noop', policy: { priority: 7 } });
  await page.goto(`/jobs/${job.id}/edit`);
  await page.getByLabel('Priority').fill('');
  await page.getByLabel('Priority').pressSequentially('1e400');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('field-error-priority')).toHaveText('Must be a number');
  expect((await api<{ policy: { priority: number } }>('GET', `/jobs/${job.id}`)).policy.priority).toBe(7);
  await page.getByLabel('Priority').fill('5');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}(\\?|$)`));
  expect((await api<{ policy: { priority: number } }>('GET', `/jobs/${job.id}`)).policy.priority).toBe(5);
});
