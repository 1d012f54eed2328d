import { expect, test } from '@playwright/test';
import { login, gotoHydrated } from './helpers/auth.ts';
import { api } from './helpers/api.ts';
import { E2E_BASE_URL, E2E_OPERATOR } from './helpers/env.ts';

// docs/security.md: an operator sees privileged handler fields disabled with the
// reason (and the server refuses anyway); every response carries the security headers.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('an operator sees privileged handlers and the command of a shell job disabled, with the reason', async ({ page }) => {
  const key = `e2e.sec.${uniq()}`;
  // an admin's shell job (the bootstrap admin token)
  const job = await api<{ id: string }>('POST', '/jobs', { key, name: 'Admin shell job', schedule: { kind: 'manual' }, handler: 'shell', payload: { command: ['/bin/echo', 'hi'] } });

  await login(page);
  await gotoHydrated(page, '/jobs/new');
  const handler = page.getByLabel('Handler');
  await expect(handler.locator('option', { hasText: 'shell (admin only)' })).toBeDisabled();
  await expect(handler.locator('option', { hasText: 'builtin.echo' })).toBeEnabled();
  await expect(page.getByTestId('handler-restrictions')).toContainText('shell (shell runs programs on the worker host');

  // the graph editor is read-only for it too, with the reason
  await page.goto(`/jobs/${job.id}?tab=graph`);
  await expect(page.getByTestId('graph-locked-reason')).toContainText('Only an admin may change what this job runs: shell runs programs on the worker host');

  await page.goto(`/jobs/${job.id}/edit`);
  await expect(page.getByTestId('privileged-reason')).toHaveText(
    /^Only an admin may change what this job runs or where it runs: shell runs programs on the worker host, so only an admin may set or change what it runs\. You may still change its schedule/,
  );
  await expect(page.getByLabel('Handler')).toBeDisabled();
  await expect(page.getByLabel('Payload')).toBeDisabled();
  // where it runs is part of what it runs: the routing is read-only too
  await expect(page.getByTestId('routing-locked')).toContainText('Only an admin may change where this job runs');
  await expect(page.getByLabel('Node group')).toBeDisabled();
  await expect(page.getByLabel('Strategy', { exact: true })).toBeDisabled();
  // the schedule stays editable, and saving it works
  await page.getByLabel('Name').fill('Renamed by an operator');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/jobs/${job.id}$`));
  const after = await api<{ name: string; steps: { handler: string; payload: unknown }[] }>('GET', `/jobs/${job.id}`);
  expect(after.name).toBe('Renamed by an operator');
  expect(after.steps[0]).toMatchObject({ handler: 'shell', payload: { command: ['/bin/echo', 'hi'] } });

  // a DAG with a shell step: the form says so over the steps it does not show, and locks the routing
  const dag = await api<{ id: string }>('POST', '/jobs', {
    key: `${key}.dag`, name: 'Admin DAG', schedule: { kind: 'manual' },
    steps: [{ key: 'fetch', handler: 'builtin.noop' }, { key: 'load', handler: 'shell', payload: { command: ['/bin/true'] } }],
    edges: [{ from: 'fetch', to: 'load' }],
  });
  await page.goto(`/jobs/${dag.id}/edit`);
  await expect(page.getByTestId('privileged-reason')).toContainText('Only an admin may change what this job runs or where it runs: shell runs programs');
  await expect(page.getByLabel('Node group')).toBeDisabled();
  await expect(page.getByLabel('Name')).toBeEnabled();
});

test('security headers on pages, API routes and 405s; the console cannot be framed', async ({ request }) => {
  for (const path of ['/login', '/api/v1/health', '/api/v1/openapi.json', '/api/v1/nope']) {
    const res = await request.get(`${E2E_BASE_URL}${path}`);
    const h = res.headers();
    expect(h['x-frame-options'], path).toBe('DENY');
    expect(h['content-security-policy'], path).toContain("frame-ancestors 'none'");
    expect(h['x-content-type-options'], path).toBe('nosniff');
    expect(h['referrer-policy'], path).toBe('same-origin');
  }
  const m = await request.fetch(`${E2E_BASE_URL}/api/v1/health`, { method: 'DELETE' });
  expect(m.status()).toBe(405);
  expect(m.headers()['x-frame-options']).toBe('DENY');
});

test('after sign-in, next= never leaves the console', async ({ page }) => {
  for (const next of ['/%5C127.0.0.1:8081/x', '/%09/example.org', '//example.org']) {
    await page.context().clearCookies();
    await page.goto(`/login?next=${next}`);
    await expect(page.locator('input[name="next"]')).toHaveValue('/');
  }
});

test('a link opened without a session signs in and lands on the page it pointed at, query included', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.sec.next.${uniq()}`, name: 'Back after sign-in', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await page.context().clearCookies();
  await page.goto(`/jobs/${job.id}?tab=calendar`);
  await expect(page).toHaveURL(`${E2E_BASE_URL}/login?next=${encodeURIComponent(`/jobs/${job.id}?tab=calendar`)}`);
  await page.getByLabel('Email').fill(E2E_OPERATOR.email);
  await page.getByLabel('Password').fill(E2E_OPERATOR.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${E2E_BASE_URL}/jobs/${job.id}?tab=calendar`);
  await expect(page.getByTestId('calendar-day').first()).toBeVisible();
  // the overview needs no next=
  await page.context().clearCookies();
  await page.goto('/');
  await expect(page).toHaveURL(`${E2E_BASE_URL}/login`);
});

test('draining the last online worker asks for confirmation naming the consequence', async ({ page }) => {
  await login(page);
  await page.goto('/workers');
  const online = page.getByTestId('worker-row').filter({ hasText: 'online' });
  await expect(online).toHaveCount(1);
  await online.getByRole('button', { name: 'Drain' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('This is the last online worker: after draining it, no schedule fires and no task runs until a worker is resumed or another one starts.');
  await expect(dialog.getByRole('button', { name: 'Drain the last worker' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(online).toContainText('online');
});

test('a system job cannot be deleted: its Delete is disabled with the reason, and the API refuses it', async ({ page }) => {
  const list = await api<{ items: { id: string; key: string }[] }>('GET', '/jobs?q=system.retention');
  const retention = list.items.find((j) => j.key === 'system.retention')!;
  expect(retention).toBeTruthy();
  await login(page);
  await page.goto(`/jobs/${retention.id}`);
  const remove = page.getByRole('button', { name: 'Delete' });
  await expect(remove).toBeDisabled();
  const described = await remove.getAttribute('aria-describedby');
  await expect(page.locator(`[id="${described}"]`)).toContainText('System jobs cannot be deleted: system.retention keeps Tickflow running');
  // the admin token too
  await expect(api('DELETE', `/jobs/${retention.id}`)).rejects.toThrow(/-> 403: .*System jobs cannot be deleted/);
  // its key and name are the system's: read-only in the edit form, with the reason; the API refuses them too
  await page.goto(`/jobs/${retention.id}/edit`);
  const reason = 'system.retention is a system job: only the system may change its key or name';
  for (const id of ['key', 'name']) {
    const input = page.locator(`input#${id}`);
    await expect(input).toBeDisabled();
    await expect(page.locator(`[id="${await input.getAttribute('aria-describedby')}"]`)).toContainText(reason);
  }
  await expect(page.locator('input#description, textarea#description')).toBeEnabled();
  const { version } = await api<{ version: number }>('GET', `/jobs/${retention.id}`);
  await expect(api('PATCH', `/jobs/${retention.id}`, { expectedVersion: version, key: 'not.system' })).rejects.toThrow(/-> 403: .*only the system may change its key or name/);
});
