import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN } from './helpers/env.ts';

// Settings → Users as an admin: reset a user's password (generated, shown once; it signs in and
// their old session ends), delete a user (gone from the list, their session stops working), and
// your own row says why it cannot be deleted.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('an admin resets a password (generated once) and deletes a user; their sessions end', async ({ page, browser }) => {
  test.setTimeout(90_000);
  const email = `e2e-reset-${uniq()}@tickflow.test`;
  await api('POST', '/users', { email, password: 'first-password-1', role: 'operator' });

  // the user is signed in somewhere else
  const other = await browser.newContext();
  const theirs = await other.newPage();
  await login(theirs, email, 'first-password-1');

  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.goto('/settings/users');
  const ownRow = page.getByTestId('users-table').getByRole('row').filter({ hasText: E2E_ADMIN.email });
  await expect(ownRow.getByRole('button', { name: `Delete ${E2E_ADMIN.email}` })).toBeDisabled();
  await expect(ownRow.getByRole('button', { name: `Delete ${E2E_ADMIN.email}` })).toHaveAccessibleDescription('You cannot disable or delete yourself');

  // reset: generate a password, shown once
  await page.getByRole('button', { name: `Reset password of ${email}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Reset password' }).click();
  const shown = page.getByTestId('generated-password-value');
  await expect(shown).toHaveText(/^[A-Za-z0-9_-]{24}$/);
  const generated = (await shown.textContent())!;
  await page.screenshot({ path: 'e2e/__screenshots__/users-reset-password.png' });
  await page.getByRole('button', { name: 'Done' }).click();

  // their old session has ended; the generated password signs in
  await theirs.goto('/jobs');
  await expect(theirs).toHaveURL(/\/login/);
  await login(theirs, email, generated);

  // delete: confirm, the row goes, their new session ends too
  await page.getByRole('button', { name: `Delete ${email}` }).click();
  await expect(page.getByRole('alertdialog')).toContainText('Their sessions and API tokens stop working at once');
  await page.getByRole('button', { name: 'Delete user' }).click();
  await expect(page.getByText(`${email} deleted`)).toBeVisible();
  await expect(page.getByTestId('users-table')).not.toContainText(email);
  await theirs.goto('/jobs');
  await expect(theirs).toHaveURL(/\/login/);
  await other.close();
});

test('Disable asks first, since it revokes the user\'s API tokens for good; Keep active changes nothing', async ({ page }) => {
  const email = `e2e-disable-${uniq()}@tickflow.test`;
  const user = await api<{ id: string }>('POST', '/users', { email, password: 'first-password-1', role: 'operator' });
  const isDisabled = async () => (await api<{ items: { id: string; disabled: boolean }[] }>('GET', '/users')).items.find((u) => u.id === user.id)!.disabled;
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.goto('/settings/users');
  const row = page.getByTestId('users-table').getByRole('row').filter({ hasText: email });

  await row.getByRole('button', { name: `Disable ${email}` }).click();
  await expect(page.getByRole('alertdialog')).toContainText('their API tokens are revoked');
  await page.getByRole('button', { name: 'Keep active' }).click();
  await expect(page.getByRole('alertdialog')).toBeHidden();
  await expect(row).toContainText('active');
  expect(await isDisabled()).toBe(false);

  await row.getByRole('button', { name: `Disable ${email}` }).click();
  await page.getByRole('button', { name: 'Disable user' }).click();
  await expect(page.getByText(`${email} disabled: sessions ended, API tokens revoked`)).toBeVisible();
  await expect(row.getByRole('button', { name: 'Enable' })).toBeVisible();
  expect(await isDisabled()).toBe(true);
});

test('a role change that gives or takes the admin role asks first; operator to viewer applies at once', async ({ page }) => {
  const email = `e2e-role-${uniq()}@tickflow.test`;
  const user = await api<{ id: string }>('POST', '/users', { email, password: 'first-password-1', role: 'operator' });
  const roleOf = async () => (await api<{ items: { id: string; role: string }[] }>('GET', '/users')).items.find((u) => u.id === user.id)!.role;
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.goto('/settings/users');
  const select = page.getByRole('combobox', { name: `Role of ${email}` });

  await select.selectOption('admin');
  await expect(page.getByRole('alertdialog')).toContainText(`Make ${email} admin?`);
  await page.getByRole('button', { name: 'Keep operator' }).click();
  await expect(page.getByRole('alertdialog')).toBeHidden();
  await expect(select).toHaveValue('operator');
  expect(await roleOf()).toBe('operator');

  await select.selectOption('admin');
  await page.getByRole('button', { name: 'Make admin' }).click();
  await expect(select).toHaveValue('admin');
  expect(await roleOf()).toBe('admin');

  await select.selectOption('viewer');
  await expect(page.getByRole('alertdialog')).toContainText('They lose the admin role at once');
  await page.getByRole('button', { name: 'Make viewer' }).click();
  await expect(select).toHaveValue('viewer');
  expect(await roleOf()).toBe('viewer');

  await select.selectOption('operator');
  await expect(select).toHaveValue('operator');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect.poll(roleOf).toBe('operator');
});

test('at 1400 px the users table fits its card: every row\'s Delete button is fully on screen', async ({ page }) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const email = `e2e-wide-${uniq()}-with-a-rather-long-address@tickflow.test`;
  await api('POST', '/users', { email, name: 'Someone With A Long Display Name', password: 'first-password-1', role: 'viewer' });
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
  await page.goto('/settings/users');
  const card = (await page.getByTestId('users-card').boundingBox())!;
  expect(card.x + card.width).toBeLessThanOrEqual(1400);
  const deletes = page.getByTestId('users-table').getByRole('button', { name: /^Delete / });
  expect(await deletes.count()).toBeGreaterThanOrEqual(2);
  for (const b of await deletes.all()) {
    const box = (await b.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(card.x);
    expect(box.x + box.width).toBeLessThanOrEqual(card.x + card.width);
    expect(box.x + box.width).toBeLessThanOrEqual(1400);
  }
  // fits without scrolling sideways inside the card
  const overflow = await page.getByTestId('users-table').evaluate((t) => t.parentElement!.scrollWidth - t.parentElement!.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: test.info().outputPath('users-1400.png') });
});
