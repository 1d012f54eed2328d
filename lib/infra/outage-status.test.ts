import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOutageStatus, noteRequestMetOutage, outageStatus } from './outage-status';

describe('outageStatus', () => {
  it('turns only the 500 of a request that met the outage into a 503 with Retry-After', () => {
    expect(outageStatus(500, true)).toEqual({ status: 503, headers: { 'retry-after': '5', 'cache-control': 'no-store' } });
    expect(outageStatus(500, false)).toBeNull();
    expect(outageStatus(200, true)).toBeNull();
    expect(outageStatus(307, true)).toBeNull();
  });
});

// A real server whose handler stands in for Next: it notes the outage (as app/_lib/page-error.ts does) after an
// await, as a page does after its query failed, then answers as Next does after an error while rendering.
let server: http.Server;
let port = 0;
beforeAll(async () => {
  installOutageStatus();
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    await new Promise((r) => setTimeout(r, 5));
    if (url.searchParams.has('outage')) noteRequestMetOutage();
    res.statusCode = Number(url.searchParams.get('status') ?? 500);
    if (url.searchParams.has('explicit')) res.writeHead(res.statusCode, 'Internal Server Error', { 'content-type': 'text/html' });
    res.end('page');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (query: string) => fetch(`http://127.0.0.1:${port}/jobs?${query}`);

describe('installOutageStatus', () => {
  it('a 500 of a request that met the outage goes out as a 503 with Retry-After', async () => {
    for (const query of ['outage', 'outage&explicit']) {
      const res = await get(query);
      expect({ query, status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({ query, status: 503, retryAfter: '5' });
      expect(await res.text()).toBe('page');
    }
  });

  it('leaves other requests, and other statuses, as they were', async () => {
    const [plain, ok] = await Promise.all([get(''), get('outage&status=200')]);
    expect(plain.status).toBe(500);
    expect(plain.headers.get('retry-after')).toBeNull();
    expect(ok.status).toBe(200);
  });
});
