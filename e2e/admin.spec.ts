import { expect, test } from '@playwright/test';
import { login } from './helpers/auth.ts';
import { E2E_ADMIN, E2E_BASE_URL } from './helpers/env.ts';

// Admin journeys (auth and roles): the users page creates a viewer who can sign
// in and is read-only; the tokens page shows a new token once, it works, and revoking it
// makes the API refuse it.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test.beforeEach(async ({ page }) => {
  await login(page, E2E_ADMIN.email, E2E_ADMIN.password);
});

test('users page: create a viewer user, who can sign in read-only', async ({ page, browser }) => {
  const email = `viewer.${uniq()}@tickflow.test`;
  const password = 'viewer-pass-123';
  await page.goto('/settings/users');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Name (optional)').fill('New Viewer');
  await page.getByLabel('Initial password').fill(password);
  await page.getByLabel('Role', { exact: true }).selectOption('viewer');
  await page.getByRole('button', { name: 'Create user' }).click();
  const row = page.getByTestId('users-table').locator('tbody tr', { hasText: email });
  await expect(row).toBeVisible();
  await expect(row.getByRole('combobox', { name: `Role of ${email}` })).toHaveValue('viewer');

  const ctx = await browser.newContext({ baseURL: E2E_BASE_URL });
  const other = await ctx.newPage();
  try {
    await login(other, email, password);
    await expect(other.getByTestId('current-role')).toHaveText('viewer');
    await other.goto('/jobs');
    await expect(other.getByRole('button', { name: 'New job' })).toBeDisabled();
    await expect(other.getByRole('button', { name: 'Import crontab' })).toBeDisabled();
  } finally {
    await ctx.close();
  }
});

test('users page: what is typed while Create user runs stays in the form for the next user', async ({ page }) => {
  const first = `first.${uniq()}@tickflow.test`;
  const next = `next.${uniq()}@tickflow.test`;
  await page.goto('/settings/users');
  // hold the create's server action (a POST to this page) so that the next email is typed while it runs
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  await page.route('**/settings/users', async (route) => {
    if (route.request().method() === 'POST') await held;
    await route.continue();
  });
  await page.getByLabel('Email').fill(first);
  await page.getByLabel('Initial password').fill('first-pass-123');
  await page.getByRole('button', { name: 'Create user' }).click();
  await expect(page.getByRole('button', { name: 'Create user' })).toBeDisabled();
  await page.getByLabel('Email').fill(next);
  release();
  await expect(page.getByTestId('users-table').locator('tbody tr', { hasText: first })).toBeVisible();
  await expect(page.getByLabel('Email')).toHaveValue(next);
});

test('tokens page: a new token is shown once, works, and stops working when revoked', async ({ page }) => {
  const name = `e2e-token-${uniq()}`;
  await page.goto('/settings/tokens');
  await page.getByLabel('Token name').fill(name);
  await page.getByLabel('Scope').selectOption('read');
  await page.getByRole('button', { name: 'Create token' }).click();
  const value = page.getByTestId('new-token-value');
  await expect(value).toHaveText(/^tf_\S+$/);
  const token = (await value.textContent())!.trim();

  const get = (t: string) => fetch(`${E2E_BASE_URL}/api/v1/jobs?limit=1`, { headers: { authorization: `Bearer ${t}` } }).then((r) => r.status);
  expect(await get(token)).toBe(200);

  // Shown once: after a reload only the prefix is listed.
  await page.reload();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await expect(page.locator('body')).not.toContainText(token);
  const row = page.getByTestId('tokens-table').locator('tbody tr', { hasText: name });
  await expect(row).toContainText('active');
  // owned by the signed-in admin, with its scope and when it was last used
  await expect(row).toContainText(E2E_ADMIN.email);
  await expect(row).toContainText('read');

  await row.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke', exact: true }).click();
  await expect(row).toContainText('revoked');
  await expect(row.getByRole('button', { name: 'Revoke' })).toHaveCount(0);
  expect(await get(token)).toBe(401);
});

test('tokens page at 1280 px: the table takes the page width, the New token form below it; no cell wraps, Revoke clear of the card edge', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto('/settings/tokens');
  const name = `e2e-layout-${uniq()}`;
  await page.getByLabel('Token name').fill(name);
  await page.getByRole('button', { name: 'Create token' }).click();
  await expect(page.getByTestId('new-token-value')).toBeVisible();
  await page.reload();
  const table = page.getByTestId('tokens-table');
  const row = table.locator('tbody tr', { hasText: name });
  await expect(row).toBeVisible();
  const card = (await table.locator('xpath=ancestor::section[1]').boundingBox())!;
  const form = (await page.getByRole('button', { name: 'Create token' }).boundingBox())!;
  expect(form.y, 'the New token form is below the table').toBeGreaterThan(card.y + card.height);
  // one line per header and per cell of the new token's row: a cell wraps when a piece of its text starts below its first line
  const wrapped = await table.locator('thead th').or(row.locator('td')).evaluateAll((cells) =>
    cells
      .map((cell) => {
        const rects: DOMRect[] = [];
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (!n.textContent!.trim()) continue;
          const r = document.createRange();
          r.selectNodeContents(n);
          rects.push(...[...r.getClientRects()].filter((b) => b.width > 0 && b.height > 0));
        }
        rects.sort((a, b) => a.top - b.top);
        return rects.some((b) => b.top >= rects[0]!.bottom - 1) ? cell.textContent : null;
      })
      .filter(Boolean),
  );
  expect(wrapped).toEqual([]);
  const revoke = (await row.getByRole('button', { name: 'Revoke' }).boundingBox())!;
  expect(card.x + card.width - (revoke.x + revoke.width), 'Revoke touches the card edge').toBeGreaterThanOrEqual(8);
  // the prefix is whole
  const prefix = row.locator('td').nth(1);
  expect(await prefix.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
});
