import { expect, test, type Locator } from '@playwright/test';
import { api, runReaches } from './helpers/api.ts';
import { login } from './helpers/auth.ts';

// Long names at 1280 px, where operators coming from xxl-job or Airflow keep keys like
// `finance.reconciliation.quarterly-close.emea-…`: a long job name, key, step key or error is cut with an
// ellipsis and shown whole on hover, so a row keeps its height and no column runs past its card's edge.

const tag = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
const LONG_NAME = 'Quarterly close: intercompany eliminations for all EMEA subsidiaries including the very long legal entity names';
const LONG_ERROR = 'the ledger service of the subsidiary answered 503 three times in a row while the elimination entries were being computed, giving up';

/** True when `el`'s text is cut: it is wider than its box. */
const isCut = (el: Locator) => el.evaluate((e) => e.scrollWidth > e.clientWidth);
/** True when the table fits its scrolling box: nothing past the card's edge. */
const fitsCard = (table: Locator) => table.evaluate((t) => t.parentElement!.scrollWidth <= t.parentElement!.clientWidth + 1);

test.beforeEach(async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('1280 px: the overview\'s latest failures cut a long job name, key and error inside the card', async ({ page }) => {
  const key = `e2e.long.finance.reconciliation.quarterly-close.emea-subsidiaries.intercompany-eliminations.${tag()}`;
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: LONG_NAME, schedule: { kind: 'manual' }, handler: 'builtin.fail', payload: { message: LONG_ERROR } });
  const run = await api<{ id: string }>('POST', `/jobs/${job.id}/trigger`, {});
  await runReaches(run.id, 'failed');

  await login(page);
  await page.goto('/');
  const table = page.getByTestId('latest-failures');
  const row = table.locator('tbody tr').filter({ hasText: run.id.slice(0, 8) });
  await expect(row).toBeVisible();
  // the name and the key each keep one line, cut, with the whole text on hover
  const name = row.getByTitle(LONG_NAME);
  const keyLine = row.getByTitle(key);
  await expect(name).toBeVisible();
  await expect(keyLine).toBeVisible();
  expect(await isCut(name)).toBe(true);
  expect(await isCut(keyLine)).toBe(true);
  const lineHeight = (await name.boundingBox())!.height;
  expect(lineHeight).toBeLessThan(24);
  expect((await row.boundingBox())!.height).toBeLessThan(64);
  // the error ends inside the card with an ellipsis; its whole text is the tooltip
  const error = row.getByTestId('failure-error');
  await expect(error).toHaveAttribute('title', new RegExp(LONG_ERROR.slice(0, 40)));
  expect(await isCut(error)).toBe(true);
  const card = (await table.locator('..').boundingBox())!;
  const e = (await error.boundingBox())!;
  expect(e.x + e.width).toBeLessThanOrEqual(card.x + card.width + 1);
  expect(await fitsCard(table)).toBe(true);
  await table.screenshot({ path: test.info().outputPath('latest-failures-1280.png') });
});

test('1280 px: a job\'s Steps table keeps each step on one line with long step keys, and its Payload inside the card', async ({ page }) => {
  const first = 'fetch_ledger_balances_from_every_subsidiary_erp_instance';
  const second = 'compute_intercompany_elimination_entries_for_every_pair';
  const job = await api<{ id: string }>('POST', '/jobs', {
    key: `e2e.long.steps.${tag()}`,
    name: 'Long step keys',
    schedule: { kind: 'manual' },
    steps: [
      { key: first, handler: 'builtin.noop', payload: { region: 'emea', entities: ['de-gmbh', 'fr-sas', 'it-spa', 'es-sl', 'nl-bv', 'be-nv', 'pl-sp'] } },
      { key: second, handler: 'builtin.echo' },
    ],
    edges: [{ from: first, to: second }],
  });
  await login(page);
  await page.goto(`/jobs/${job.id}`);
  const table = page.getByTestId('steps-table');
  await expect(table.locator('tbody tr')).toHaveCount(2);
  for (const tr of await table.locator('tbody tr').all()) {
    const tops = await tr.locator('td').evaluateAll((tds) => tds.map((td) => Math.round(td.getBoundingClientRect().height)));
    // one line each: a cell of two lines or more would be over 40 px high
    expect(Math.max(...tops), await tr.textContent() ?? '').toBeLessThan(40);
  }
  // the step key and the parent are cut, whole on hover; the payload too, and the table stays inside its card
  await expect(table.getByTitle(first, { exact: true }).first()).toBeVisible();
  expect(await isCut(table.getByTitle(first, { exact: true }).first())).toBe(true);
  expect(await isCut(table.getByTitle(second, { exact: true }))).toBe(true);
  await expect(table.locator('thead th', { hasText: 'Payload' })).toBeVisible();
  expect(await fitsCard(table)).toBe(true);
  const payloadHeader = (await table.locator('thead th', { hasText: 'Payload' }).boundingBox())!;
  const card = (await table.locator('..').boundingBox())!;
  expect(payloadHeader.x + payloadHeader.width).toBeLessThanOrEqual(card.x + card.width + 1);
  await table.screenshot({ path: test.info().outputPath('steps-table-1280.png') });
});

test('an address no page answers shows the console\'s own 404 with a way back, not a bare page', async ({ page }) => {
  await login(page);
  const res = await page.goto('/jobz/nothing-here');
  expect(res!.status()).toBe(404);
  const notFound = page.getByTestId('page-not-found');
  await expect(notFound).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Page not found', level: 1 })).toBeVisible();
  await expect(page).toHaveTitle(/Page not found · Tickflow/);
  await page.getByRole('link', { name: 'Go to the overview' }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('heading', { name: 'Overview', level: 1 })).toBeVisible();
});

test('390 px: a job\'s page with a long key wraps the key in its heading, so the whole key and the status badge are on screen', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const key = `e2e.long.finance.reconciliation.quarterly-close.emea-subsidiaries.${tag()}`;
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: LONG_NAME, schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await login(page);
  await page.goto(`/jobs/${job.id}`);
  const title = page.getByTestId('job-title-key');
  await expect(title).toHaveText(key);
  // not clipped: nothing of it lies past its box or the screen's edge
  expect(await isCut(title)).toBe(false);
  const t = (await title.boundingBox())!;
  expect(t.x + t.width).toBeLessThanOrEqual(390);
  const h1 = page.getByRole('heading', { level: 1 });
  expect(await h1.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  const badge = page.getByTestId('job-status');
  await expect(badge).toBeVisible();
  const b = (await badge.boundingBox())!;
  expect(b.x + b.width).toBeLessThanOrEqual(390);
  await page.screenshot({ path: test.info().outputPath('job-title-390.png'), clip: { x: 0, y: 0, width: 390, height: 300 } });
});
