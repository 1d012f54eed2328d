import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_API_TOKEN } from './helpers/env.ts';
import { freePort } from '../tests/helpers/free-port.ts';
import { startDatabaseRelay, type DatabaseRelay } from '../tests/helpers/database-relay.ts';

/**
 * The database goes away while a page renders (docs/operations.md "Database restarts and failover"):
 * the probe before rendering (proxy.ts) still finds it, the page's own queries do not. A second console
 * (the same built `next start`) reaches the e2e database through a relay the test cuts at that moment
 * (tests/helpers/database-relay.ts), so the outage falls between the probe and the queries every time;
 * or freezes (connections open, nothing answered), where the query timeout (lib/db-timeouts.ts) ends the wait.
 * Its port: E2E_OUTAGE_PORT, else one the kernel picks.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
let consoleProc: ChildProcess | null = null;
let relay: DatabaseRelay;
let outageConsole = '';

test.beforeAll(async () => {
  test.setTimeout(120_000);
  relay = await startDatabaseRelay(process.env.E2E_DATABASE_URL!);
  const port = Number(process.env.E2E_OUTAGE_PORT) || (await freePort());
  consoleProc = spawn(process.execPath, [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: ROOT,
    // a short query timeout (lib/db-timeouts.ts) for the frozen database's case
    env: { ...process.env, DATABASE_URL: relay.url, TICKFLOW_API_TOKEN: E2E_API_TOKEN, LOG_LEVEL: 'fatal', TICKFLOW_DB_QUERY_TIMEOUT_MS: '2000' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  outageConsole = `http://127.0.0.1:${port}`;
  await expect.poll(async () => fetch(`${outageConsole}/api/v1/health`).then((r) => r.status, () => 0), { timeout: 60_000 }).toBe(200);
});

test.afterAll(async () => {
  relay.mend();
  await new Promise<void>((resolve) => {
    if (!consoleProc || consoleProc.exitCode !== null) return resolve();
    consoleProc.once('exit', () => resolve());
    consoleProc.kill('SIGTERM');
  });
  await relay.close();
});

test.afterEach(() => {
  relay.thaw();
  relay.mend();
});

test('a page whose queries meet the outage after the probe passed answers 503 and shows the outage page, then comes back', async ({ page }) => {
  await login(page); // on the e2e console; the session cookie is sent to the other port too
  await page.goto(`${outageConsole}/jobs`);
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();

  relay.cut();
  const res = await page.goto(`${outageConsole}/workers`);
  expect(res?.status()).toBe(503);
  expect(res?.headers()['retry-after']).toBe('5');
  // the page proxy.ts answers while the probe fails: its text is in the document itself, no script needed
  expect(await res?.text()).toContain('The database is not reachable right now');
  const outage = page.getByTestId('database-unavailable');
  await expect(outage).toBeVisible();
  await expect(outage.getByRole('heading', { name: 'Database unavailable' })).toBeVisible();
  await expect(outage).toContainText('The database is not reachable right now');
  await expect(page.getByText('This page could not be loaded')).toHaveCount(0);

  // a move inside the console (no full page load) meets the same outage: the same page
  relay.mend();
  await expect.poll(async () => (await page.request.get(`${outageConsole}/jobs`)).status(), { timeout: 10_000 }).toBe(200);
  await page.goto(`${outageConsole}/jobs`);
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
  relay.cut();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Workers' }).click();
  await expect(page.getByTestId('database-unavailable')).toBeVisible();

  // back: the outage page reloads itself every 5 s
  relay.mend();
  await expect(page.getByRole('heading', { name: 'Workers' })).toBeVisible({ timeout: 15_000 });
});

test('a page whose queries meet a database that stopped answering answers 503 within the query timeout, then comes back', async ({ page }) => {
  await login(page);
  await page.goto(`${outageConsole}/jobs`);
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();

  // connections stay open, nothing comes back (a hung server, a partition); the probe still passes
  relay.freeze();
  const started = Date.now();
  const res = await page.goto(`${outageConsole}/workers`);
  expect(res?.status()).toBe(503);
  expect(res?.headers()['retry-after']).toBe('5');
  // 2 s query timeout + 1 s grace, or the 10 s connect timeout of a connection opened meanwhile: never a hang
  expect(Date.now() - started).toBeLessThan(20_000);
  await expect(page.getByTestId('database-unavailable')).toBeVisible();
  await expect(page.getByText('This page could not be loaded')).toHaveCount(0);

  relay.thaw();
  await expect(page.getByRole('heading', { name: 'Workers' })).toBeVisible({ timeout: 20_000 });
});

test('a server action that meets the outage says "database unavailable", not a generic failure', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.outage.${Date.now().toString(36)}`, name: 'Outage', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await login(page);
  await page.goto(`${outageConsole}/jobs/${job.id}`);
  const runNow = page.getByTestId('job-action-run').getByRole('button', { name: 'Run now' });
  await expect(runNow).toBeVisible();

  relay.cut();
  await runNow.click();
  const toast = page.getByText(/database unavailable/i).first();
  await expect(toast).toBeVisible();
  await expect(page.getByText(/failed unexpectedly/)).toHaveCount(0);

  // sign-out cannot end the session meanwhile: the page says why instead of a generic error
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByTestId('database-unavailable')).toBeVisible();
  await expect(page.getByText('This page could not be loaded')).toHaveCount(0);
});
