import { expect, test } from '@playwright/test';

// The REST API's edges as a client meets them through the real server (proxy.ts + the catch-all route).
test('a wrong method gets a JSON 405 with Allow; an unknown API path a JSON 404', async ({ request }) => {
  const put = await request.put('/api/v1/jobs', { data: {} });
  expect(put.status()).toBe(405);
  expect(put.headers()['allow']).toBe('GET, HEAD, OPTIONS, POST');
  expect((await put.json()).error.code).toBe('method_not_allowed');

  const get = await request.get('/api/v1/jobs/5b4c3f6e-0000-4000-8000-000000000000/pause');
  expect(get.status()).toBe(405);
  expect(get.headers()['allow']).toBe('OPTIONS, POST');

  for (const path of ['/api/v1', '/api/v1/nope/deeper']) {
    const r = await request.get(path);
    expect(r.status(), path).toBe(404);
    expect((await r.json()).error.code, path).toBe('not_found');
  }
  // allowed methods pass through untouched
  expect((await request.get('/api/v1/health')).status()).toBe(200);
  expect((await request.get('/api/v1/jobs')).status()).toBe(401); // no token: the route itself answers
});
