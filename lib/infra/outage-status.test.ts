import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { databaseUnavailablePage } from './database-unavailable';
import { installOutageStatus, noteRequestMetOutage, outageStatus } from './outage-status';

describe('outageStatus', () => {
  it('turns only the 500 of a request that met the outage into a 503 with Retry-After', () => {
    expect(outageStatus(500, true)).toEqual({ status: 503, headers: { 'content-type': 'text/html; charset=utf-8', 'retry-after': '5', 'cache-control': 'no-store' } });
    expect(outageStatus(500, false)).toBeNull();
    expect(outageStatus(200, true)).toBeNull();
    expect(outageStatus(307, true)).toBeNull();
  });
});

// A real server whose handler stands in for Next: it notes the outage (as app/_lib/page-error.ts does) after an
// await, as a page does after its query failed, then answers as Next does after an error while rendering:
// status, then the body in chunks, or a compressed body (next start compresses pages).
let server: http.Server;
let port = 0;
beforeAll(async () => {
  installOutageStatus();
  server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    await new Promise((r) => setTimeout(r, 5));
    if (url.searchParams.has('outage')) noteRequestMetOutage();
    res.statusCode = Number(url.searchParams.get('status') ?? 500);
    if (url.searchParams.has('gzip')) {
      const body = gzipSync('<html>next error page</html>');
      res.setHeader('content-encoding', 'gzip');
      res.setHeader('content-length', String(body.length));
      res.end(body);
      return;
    }
    if (url.searchParams.has('explicit')) res.writeHead(res.statusCode, 'Internal Server Error', { 'content-type': 'text/html', 'content-length': '31' });
    res.write('<html>next error ');
    res.end('page</html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const get = (query: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}/jobs?${query}`, { headers });

describe('installOutageStatus', () => {
  it("a 500 of a request that met the outage goes out as proxy.ts's 503 page, with Retry-After", async () => {
    for (const query of ['outage', 'outage&explicit', 'outage&gzip']) {
      const res = await get(query);
      expect({ query, status: res.status, retryAfter: res.headers.get('retry-after'), type: res.headers.get('content-type'), encoding: res.headers.get('content-encoding') }).toEqual({
        query, status: 503, retryAfter: '5', type: 'text/html; charset=utf-8', encoding: null,
      });
      expect(await res.text()).toBe(databaseUnavailablePage());
    }
  });

  it('leaves other requests, and other statuses, as they were', async () => {
    const [plain, ok] = await Promise.all([get(''), get('outage&status=200')]);
    expect(plain.status).toBe(500);
    expect(plain.headers.get('retry-after')).toBeNull();
    expect(await plain.text()).toBe('<html>next error page</html>');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('<html>next error page</html>');
    // a server action's answer is read by its caller: left as it was
    const action = await get('outage', { 'next-action': '7f00' });
    expect({ status: action.status, text: await action.text() }).toEqual({ status: 500, text: '<html>next error page</html>' });
    const gzipped = await get('gzip');
    expect({ status: gzipped.status, text: await gzipped.text() }).toEqual({ status: 500, text: '<html>next error page</html>' });
  });
});
