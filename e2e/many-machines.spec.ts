import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { api } from './helpers/api.ts';
import { login } from './helpers/auth.ts';
import { E2E_API_TOKEN, E2E_BASE_URL } from './helpers/env.ts';
import { freePort } from '../tests/helpers/free-port.ts';

/**
 * Running on many machines (docs/operations.md): two consoles and three workers
 * on one database. The first console and worker are the ones e2e/global-setup.ts
 * started; this file starts a second console (the same built `next start`) and two
 * more workers with `npm run worker` (one in another group, with labels). A
 * session made on one console is valid on the other, a live page on console B
 * follows work triggered through console A and run by the routed worker, and the
 * login rate limit counts failures made on either console.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const children: ChildProcess[] = [];
let consoleB = '';


function start(cmd: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL!, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr?.on('data', (d) => process.stderr.write(`[many-machines ${args.join(' ')}] ${d}`));
  children.push(child);
  return child;
}

test.beforeAll(async () => {
  test.setTimeout(120_000);
  const port = await freePort();
  // as scripts/start.ts starts a console: with the peer-address hook, so it knows client addresses (login limits)
  const peerAddress = pathToFileURL(path.join(ROOT, 'scripts/peer-address.mjs')).href;
  start(process.execPath, ['--import', peerAddress, path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-p', String(port), '-H', '127.0.0.1'], { TICKFLOW_API_TOKEN: E2E_API_TOKEN });
  start('npm', ['run', '--silent', 'worker'], { TICKFLOW_NODE_NAME: 'm-worker-2', TICKFLOW_POLL_MS: '250' });
  start('npm', ['run', '--silent', 'worker'], { TICKFLOW_NODE_NAME: 'm-worker-3', TICKFLOW_NODE_GROUP: 'batch', TICKFLOW_NODE_LABELS: 'zone=b', TICKFLOW_POLL_MS: '250' });
  consoleB = `http://127.0.0.1:${port}`;
  await expect
    .poll(async () => (await fetch(`${consoleB}/api/v1/health`).then((r) => r.json()).catch(() => null))?.workers ?? 0, { timeout: 90_000 })
    .toBeGreaterThanOrEqual(3);
});

test.afterAll(async () => {
  await Promise.all(
    children.map((c) => new Promise<void>((resolve) => {
      if (c.exitCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGTERM');
    })),
  );
});

test('a session made on console A is valid on console B (sessions live in the database)', async ({ page }) => {
  await login(page); // console A (baseURL)
  // Same host, other port: the browser sends the same session cookie to console B.
  await page.goto(`${consoleB}/jobs`);
  await expect(page).toHaveURL(new RegExp(`^${consoleB}/jobs`));
  await expect(page.getByRole('heading', { name: 'Jobs' })).toBeVisible();
});

test('a live run page on console B follows a run triggered through console A and run by the routed worker', async ({ page }) => {
  const job = await api('POST', '/jobs', {
    key: `many.batch.${Date.now()}`,
    name: 'routed to the batch group',
    schedule: { kind: 'manual' },
    handler: 'builtin.sleep',
    // long enough that the page, opened after the trigger on a console that serves its first
    // page, still finds the run running on a loaded machine
    payload: { ms: 8000 },
    routing: { nodeGroup: 'batch', labels: { zone: 'b' } },
  });
  const run = await api('POST', `/jobs/${job.id}/trigger`, {});
  await login(page);
  await page.goto(`${consoleB}/runs/${run.id}`);
  await expect(page.getByText('running', { exact: true }).first()).toBeVisible({ timeout: 20_000 });
  // no reload: the page polls console B, which reads what the worker wrote
  await expect(page.getByText('success', { exact: true }).first()).toBeVisible({ timeout: 30_000 });
  const done = await fetch(`${consoleB}/api/v1/runs/${run.id}`, { headers: { authorization: `Bearer ${E2E_API_TOKEN}` } }).then((r) => r.json());
  const workers = await fetch(`${consoleB}/api/v1/workers`, { headers: { authorization: `Bearer ${E2E_API_TOKEN}` } }).then((r) => r.json());
  const list = workers.items as { nodeId: string; name: string }[];
  const ranOn = list.find((w) => w.nodeId === done.tasks[0].lockedBy);
  expect(ranOn?.name).toBe('m-worker-3');
});

// Holds once the login rate limit is kept in the database (until then each console counts alone).
test('the login rate limit counts failures on both consoles', async ({ page }) => {
  // an account of its own: the limit would lock the shared e2e accounts out of later tests
  const email = `ratelimit-${Date.now()}@tickflow.test`;
  const password = 'ratelimit-password-1';
  await api('POST', '/users', { email, name: 'Rate limit', password, role: 'viewer' });
  for (let i = 0; i < 5; i++) {
    await page.goto(`${i % 2 === 0 ? E2E_BASE_URL : consoleB}/login`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(`wrong-password-${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText(/Invalid email or password/)).toBeVisible();
  }
  await page.goto(`${consoleB}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText(/Too many failed logins/)).toBeVisible();
});
