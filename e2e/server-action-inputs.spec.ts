import { expect, test } from '@playwright/test';
import { gotoHydrated, login } from './helpers/auth.ts';
import { api } from './helpers/api.ts';
import { E2E_BASE_URL } from './helpers/env.ts';

// docs/security.md "Server actions": an action is a public POST endpoint. Called with malformed
// arguments it answers a validation error naming the field; from another origin, a 403.

const uniq = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4).toString(36)}`;

test('a server action replayed with malformed arguments names the field; from a foreign Origin it is a 403', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.actargs.${uniq()}`, name: 'Action args', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await login(page);
  await gotoHydrated(page, `/jobs/${job.id}`);
  // the Pause button's action id, as the browser sends it
  const sent = page.waitForRequest((r) => r.method() === 'POST' && !!r.headers()['next-action']);
  await page.getByRole('button', { name: 'Pause' }).click();
  const pause = await sent;
  const actionId = pause.headers()['next-action']!;
  await expect(page.getByTestId('job-status')).toHaveText('paused');

  const host = new URL(E2E_BASE_URL).host;
  const replay = (body: string, origin: string) =>
    page.request.post(`/jobs/${job.id}`, {
      headers: { 'next-action': actionId, 'content-type': 'text/plain;charset=UTF-8', accept: 'text/x-component', origin },
      data: body,
      failOnStatusCode: false,
    });

  // pauseJobAction() — used to be "Pause failed unexpectedly"
  const noArgs = await replay('[]', `http://${host}`);
  expect(noArgs.status()).toBe(200);
  const text = await noArgs.text();
  expect(text).toContain('"code":"validation"');
  expect(text).toMatch(/"fields":\{"id":/);
  expect(text).not.toContain('unexpectedly');

  // another origin: refused before Next's own check (which answers 500)
  const foreign = await replay(JSON.stringify([job.id]), 'https://evil.example');
  expect(foreign.status()).toBe(403);
  expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden' } });
  await page.reload();
  await expect(page.getByTestId('job-status')).toHaveText('paused');
});

test('a server action whose body cannot be decoded is a 400 naming the body, one over 1 MB a 413, not a 500', async ({ page }) => {
  const job = await api<{ id: string }>('POST', '/jobs', { key: `e2e.actbody.${uniq()}`, name: 'Action body', schedule: { kind: 'manual' }, handler: 'builtin.noop' });
  await login(page);
  await gotoHydrated(page, `/jobs/${job.id}`);
  const sent = page.waitForRequest((r) => r.method() === 'POST' && !!r.headers()['next-action']);
  await page.getByRole('button', { name: 'Pause' }).click();
  const actionId = (await sent).headers()['next-action']!;
  await expect(page.getByTestId('job-status')).toHaveText('paused');

  const origin = `http://${new URL(E2E_BASE_URL).host}`;
  const send = (contentType: string, body: string) =>
    page.request.post(`/jobs/${job.id}`, {
      headers: { 'next-action': actionId, 'content-type': contentType, accept: 'text/x-component', origin },
      data: body,
      failOnStatusCode: false,
    });
  const wrongBoundary = '--AaB03x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["x"]\r\n--WRONG--\r\n';
  for (const [contentType, body, field, message] of [
    ['text/plain;charset=UTF-8', 'not json', '_body', /not JSON/],
    ['text/plain;charset=UTF-8', '', '_body', /empty/],
    ['multipart/form-data; boundary=AaB03x', wrongBoundary, '_body', /not multipart/],
    ['application/json', '[]', 'content-type', /Content-Type/],
    ['text/plain;charset=UTF-8', '["$1"]', '_body', /reference no action takes/],
    ['multipart/form-data; boundary=AaB03x', '--AaB03x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$B1"]\r\n--AaB03x--\r\n', '_body', /reference no action takes/],
    ['text/plain;charset=UTF-8', `${'['.repeat(5000)}${']'.repeat(5000)}`, '_body', /nests deeper/],
  ] as const) {
    const res = await send(contentType, body);
    expect(res.status(), `${contentType} ${JSON.stringify(body)}`).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'validation', message: expect.stringMatching(message), fields: { [field]: expect.any(String) } } });
  }

  // a body over the 1 MB action limit: a 413 from the proxy (Next's own refusal is a 500), without a
  // session too, and a form posted before hydration the same
  const oversize = JSON.stringify(['x'.repeat(1024 * 1024 + 10)]);
  const big = await send('text/plain;charset=UTF-8', oversize);
  expect(big.status()).toBe(413);
  expect(await big.json()).toMatchObject({ error: { code: 'payload_too_large', fields: { _body: expect.stringMatching(/larger than/) } } });
  const bigForm = await page.request.post('/login', {
    headers: { origin, 'content-type': 'multipart/form-data; boundary=AaB03x' },
    data: `--AaB03x\r\nContent-Disposition: form-data; name="0"\r\n\r\n${oversize}\r\n--AaB03x--\r\n`,
    failOnStatusCode: false,
    maxRedirects: 0,
  });
  expect(bigForm.status()).toBe(413);

  // what the browser sends still goes through
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByTestId('job-status')).not.toHaveText('paused');
});

test('a form posted before hydration (no next-action header): from a foreign Origin a 403, with a broken body a 400, not a 500; from the console itself it works', async ({ page }) => {
  await login(page);
  await gotoHydrated(page, '/');
  // the sign-out form's action id, as a browser without JavaScript posts it (a form field)
  const field = await page.locator('form input[name^="$ACTION_ID_"]').first().getAttribute('name');
  expect(field).toBeTruthy();
  const post = (origin: string, name: string) =>
    page.request.post('/', { multipart: { [name]: '' }, headers: { origin }, failOnStatusCode: false, maxRedirects: 0 });

  const foreign = await post('http://127.0.0.1:9', field!);
  expect(foreign.status()).toBe(403);
  expect(await foreign.json()).toMatchObject({ error: { code: 'forbidden', message: expect.stringMatching(/same-origin only/) } });
  // the sign-out did not run: the session still opens the console
  await page.goto('/');
  await expect(page).not.toHaveURL(/\/login/);

  const origin = `http://${new URL(E2E_BASE_URL).host}`;
  // an action id the console does not have: Next's own 400
  const unknown = await post(origin, '$ACTION_ID_00112233445566778899aabbccddeeff00112233');
  expect(unknown.status()).toBe(400);
  const garbled = await page.request.post('/', {
    headers: { origin, 'content-type': 'multipart/form-data; boundary=AaB03x' }, data: '--AaB03x\r\nbroken', failOnStatusCode: false, maxRedirects: 0,
  });
  // a body that is not the form its Content-Type names: 400 naming the body (Next's parser answers 500)
  expect(garbled.status()).toBe(400);
  expect(await garbled.json()).toMatchObject({ error: { code: 'validation', fields: { _body: expect.stringMatching(/not multipart/) } } });
  // the real form: signed out, sent to the sign-in page
  const same = await post(origin, field!);
  expect(same.status()).toBe(303);
  expect(same.headers()['location']).toMatch(/\/login/);
});
