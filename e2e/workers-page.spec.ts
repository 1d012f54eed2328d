import { expect, test, type Page } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { withDb } from './helpers/database.ts';
import { E2E_API_TOKEN, E2E_BASE_URL } from './helpers/env.ts';

// The workers page with worker rows inserted behind the console's back (an online node to drain,
// a stopped and a lost one). Those rows change what every workers page shows, so this file runs
// in playwright.config.ts's `alone` project, never beside another spec.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;
type Run = { id: string; status: string };

const confirm = (page: Page, name: string) => page.getByRole('alertdialog').getByRole('button', { name, exact: true }).click();

test.beforeEach(async ({ page }) => {
  await login(page);
});

test('workers page: the e2e worker is online; Drain sets a (fake, inserted) node draining, Resume brings it back', async ({ page }) => {
  const nodeId = `e2e-fake-${uniq()}`;
  await withDb((c) =>
    c.query(`INSERT INTO worker_nodes (node_id, name, host, pid, status, last_heartbeat_at) VALUES ($1, $1, 'fake-host', 4242, 'online', now())`, [nodeId]),
  );
  try {
    await page.goto('/workers');
    const rows = page.getByTestId('worker-row');
    await expect(rows.filter({ hasNotText: nodeId }).filter({ hasText: 'online' }).first()).toBeVisible();
    const fake = rows.filter({ hasText: nodeId });
    await expect(fake).toContainText('online');
    await fake.getByRole('button', { name: 'Drain' }).click();
    await confirm(page, 'Drain');
    await expect(fake).toContainText('draining');
    await expect(fake.getByRole('button', { name: 'Drain' })).toHaveCount(0);
    // Resume undoes the drain
    await fake.getByRole('button', { name: 'Resume' }).click();
    await expect(fake).toContainText('online');
    await expect(fake.getByRole('button', { name: 'Drain' })).toBeVisible();
    // the real worker still works
    const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.after-drain.${uniq()}`, name: 'E2E after drain', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
    const run = await api<Run>('POST', `/jobs/${job.id}/trigger`, {});
    await expect.poll(async () => (await api<Run>('GET', `/runs/${run.id}`)).status, { timeout: 30_000 }).toBe('success');
  } finally {
    await withDb((c) => c.query(`DELETE FROM worker_nodes WHERE node_id = $1`, [nodeId]));
  }
});

test('workers page: a worker stopped cleanly and one whose heartbeat was lost are told apart (badge, when and how), neither offers Drain or Resume', async ({ page }) => {
  const stopped = `e2e-stopped-${uniq()}`;
  const lost = `e2e-lost-${uniq()}`;
  const stoppedAt = '2026-03-01T08:30:05.000Z';
  const lastBeat = '2026-03-01T07:15:00.000Z';
  await withDb(async (c) => {
    await c.query(
      `INSERT INTO worker_nodes (node_id, name, host, pid, status, started_at, last_heartbeat_at, stopped_at, stop_signal) VALUES ($1, $1, 'fake-host', 4243, 'stopped', '2026-03-01T06:30:05Z', $2, $2, 'SIGTERM')`,
      [stopped, stoppedAt],
    );
    await c.query(`INSERT INTO worker_nodes (node_id, name, host, pid, status, started_at, last_heartbeat_at) VALUES ($1, $1, 'fake-host', 4244, 'offline', '2026-03-01T07:00:00Z', $2)`, [lost, lastBeat]);
  });
  try {
    await page.goto('/workers');
    const rows = page.getByTestId('worker-row');
    const s = rows.filter({ hasText: stopped });
    const l = rows.filter({ hasText: lost });
    await expect(s.getByTestId('worker-status')).toHaveText('stopped');
    await expect(s.getByTestId('worker-status-detail')).toContainText(/^stopped cleanly on SIGTERM at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);
    await expect(s.getByTestId('worker-status-detail').locator('time')).toHaveAttribute('datetime', stoppedAt);
    await expect(l.getByTestId('worker-status')).toHaveText('offline');
    await expect(l.getByTestId('worker-status-detail')).toContainText(/^heartbeat lost \(crash, kill -9 or machine gone\): offline since \d{4}-/);
    await expect(l.getByTestId('worker-status-detail').locator('time')).toHaveAttribute('datetime', lastBeat);
    // neither is up: how long each process ran, to its clean stop or to its last heartbeat
    await expect(s.getByTestId('worker-ran')).toHaveText('ran 2h 00m');
    await expect(l.getByTestId('worker-ran')).toHaveText('ran 15m 00s');
    // the two badges do not look alike: a lost heartbeat is red, a clean stop grey
    const bg = async (row: typeof s) => row.getByTestId('worker-status').evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(await bg(s)).not.toBe(await bg(l));
    // the process is gone either way: nothing to drain or resume; offline is listed before stopped
    for (const row of [s, l]) await expect(row.getByRole('button')).toHaveCount(0);
    const ids = await rows.evaluateAll((els) => els.map((e) => e.textContent ?? ''));
    expect(ids.findIndex((x) => x.includes(lost))).toBeLessThan(ids.findIndex((x) => x.includes(stopped)));
    // the API refuses them too, saying which
    const r = await fetch(`${E2E_BASE_URL}/api/v1/workers/${stopped}/drain`, {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_API_TOKEN}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(409);
    expect(((await r.json()) as { error: { message: string } }).error.message).toBe(`Cannot drain worker ${stopped}: it stopped cleanly on SIGTERM at ${stoppedAt}. Start the worker process again instead.`);
  } finally {
    await withDb((c) => c.query(`DELETE FROM worker_nodes WHERE node_id = ANY($1)`, [[stopped, lost]]));
  }
});

test('workers page: the heartbeat tooltip writes its time as every tooltip does (lib/time/format.ts), never raw ISO', async ({ page }) => {
  await page.goto('/workers');
  const row = page.getByTestId('worker-row').filter({ hasText: 'online' }).first();
  await expect(row).toBeVisible();
  const titles = await row.locator('[title]').evaluateAll((els) => els.map((e) => e.getAttribute('title')!));
  expect(titles.filter((t) => /\d{4}-\d\d-\d\dT\d\d:\d\d/.test(t))).toEqual([]);
  const heartbeat = row.locator('td', { hasText: / ago$/ }).first();
  await expect(heartbeat).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
});

test('workers page: a worker that holds secrets for step settings lists their names, never a value', async ({ page }) => {
  const nodeId = `e2e-secrets-${uniq()}`;
  await withDb((c) =>
    c.query(`INSERT INTO worker_nodes (node_id, name, host, pid, status, last_heartbeat_at, secret_names) VALUES ($1, $1, 'fake-host', 4343, 'online', now(), '{API_TOKEN,DB_PASSWORD}')`, [nodeId]),
  );
  try {
    await page.goto('/workers');
    const row = page.getByTestId('worker-row').filter({ hasText: nodeId });
    await expect(row.getByTestId('worker-secrets')).toHaveText('Secrets: API_TOKEN, DB_PASSWORD');
    // a worker holding none says nothing about secrets
    await expect(page.getByTestId('worker-row').filter({ hasNotText: nodeId }).filter({ hasText: 'online' }).first().getByTestId('worker-secrets')).toHaveCount(0);
  } finally {
    await withDb((c) => c.query(`DELETE FROM worker_nodes WHERE node_id = $1`, [nodeId]));
  }
});
