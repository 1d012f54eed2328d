import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// The job form keeps what the operator typed: with unsaved input, a link, Back and reload ask first (the
// DAG editor's guard, components/unsaved-changes.ts); an untouched form and a saved one leave without a word.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await login(page);
});

test('a typed-in new job form asks before a link, Back or reload drops it; Keep editing keeps the input, Leave goes', async ({ page }) => {
  const native: string[] = [];
  page.on('dialog', (d) => {
    native.push(d.type());
    void d.dismiss();
  });
  const dialog = page.getByRole('alertdialog', { name: 'Unsaved changes' });
  await page.goto('/jobs');
  await page.goto('/jobs/new');
  const name = page.getByLabel('Name', { exact: true });
  await name.fill('Half-typed job');

  // A sidebar link.
  await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Keep editing' }).click();
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/jobs\/new$/);
  await expect(name).toHaveValue('Half-typed job');

  // Back; Escape keeps the input as Keep editing does.
  await page.goBack();
  await expect(dialog).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(page).toHaveURL(/\/jobs\/new$/);
  await expect(name).toHaveValue('Half-typed job');
  expect(native).toEqual([]);

  // Reload: the browser's own prompt.
  await page.reload({ timeout: 5_000 }).catch(() => undefined);
  await expect.poll(() => native).toEqual(['beforeunload']);
  await expect(name).toHaveValue('Half-typed job');

  // Leave through the form's own Cancel link: the jobs list opens.
  await page.getByRole('link', { name: 'Cancel', exact: true }).click();
  await dialog.getByRole('button', { name: 'Leave', exact: true }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  expect(native).toEqual(['beforeunload']);
});

test('an untouched form and a saved edit leave without asking', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.unsaved.${uniq()}`, name: 'Before', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  const native: string[] = [];
  page.on('dialog', (d) => {
    native.push(d.type());
    void d.dismiss();
  });
  const dialog = page.getByRole('alertdialog', { name: 'Unsaved changes' });

  // untouched: a link and Back go at once
  await page.goto('/jobs/new');
  await expect(page.getByLabel('Name', { exact: true })).toBeVisible();
  await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
  await expect(page).toHaveURL(/\/runs$/);
  await page.goto(`/jobs/${job.id}/edit`);
  await expect(page.getByLabel('Name', { exact: true })).toHaveValue('Before');
  await page.goBack();
  await expect(page).toHaveURL(/\/runs$/);

  // saved: the job page opens, and its links go without a question
  await page.goto(`/jobs/${job.id}/edit`);
  await page.getByLabel('Name', { exact: true }).fill('After');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
  await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
  await expect(page).toHaveURL(/\/runs$/);
  await expect(dialog).toBeHidden();
  expect(native).toEqual([]);
  expect((await api<{ name: string }>('GET', `/jobs/${job.id}`)).name).toBe('After');
});
