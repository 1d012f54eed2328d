import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardRequest, installHttpGuard } from './http-guard';

// A real server whose handler stands in for Next: the guard must answer before it.
let server: http.Server;
let port = 0;
const reached: string[] = [];
beforeAll(async () => {
  installHttpGuard();
  server = http.createServer((req, res) => {
    reached.push(`${req.method} ${req.url}`);
    res.end('next');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function send(method: string, path: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('http guard', () => {
  it('answers TRACE (and other non-standard methods) with 405 and Allow, on API routes with the route methods, without reaching the app', async () => {
    reached.length = 0;
    const api = await send('TRACE', '/api/v1/jobs');
    expect(api.status).toBe(405);
    expect(api.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
    expect(JSON.parse(api.body).error.code).toBe('method_not_allowed');
    const page = await send('TRACE', '/jobs');
    expect(page.status).toBe(405);
    expect(page.headers.allow).toBe('DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT');
    expect((await send('PROPFIND', '/api/v1/health')).status).toBe(405);
    expect(reached).toEqual([]);
  });

  it('answers a malformed percent-encoding in any path segment with 400, API in JSON naming _path', async () => {
    reached.length = 0;
    for (const p of ['/api/v1/jobs/%ff', '/api/v1/%ff/x', '/api/v1/jobs/%E0%A4%A/pause', '/api/v1/runs/%c3%28']) {
      const r = await send('GET', p);
      expect(r.status, p).toBe(400);
      expect(JSON.parse(r.body).error).toMatchObject({ code: 'validation', fields: { _path: expect.any(String) } });
    }
    for (const p of ['/jobs/%ff', '/%ff', '/runs/abc%']) {
      const r = await send('GET', p);
      expect(r.status, p).toBe(400);
      expect(r.headers['content-type']).toMatch(/^text\/plain/);
    }
    expect(reached).toEqual([]);
  });

  it('passes ordinary requests, valid escapes and odd but well-formed queries on', async () => {
    reached.length = 0;
    expect((await send('GET', '/api/v1/jobs/%E2%9C%93')).body).toBe('next');
    // a % that starts no escape stays as it is (URLSearchParams' rule); a literal U+FFFD sent as UTF-8 is UTF-8
    expect((await send('POST', '/jobs?q=100%&x=%zz')).body).toBe('next');
    expect((await send('GET', '/api/v1/logs/search?q=caf%C3%A9+%EF%BF%BD')).body).toBe('next');
    expect((await send('OPTIONS', '/api/v1/jobs')).body).toBe('next');
    expect(reached).toEqual(['GET /api/v1/jobs/%E2%9C%93', 'POST /jobs?q=100%&x=%zz', 'GET /api/v1/logs/search?q=caf%C3%A9+%EF%BF%BD', 'OPTIONS /api/v1/jobs']);
  });

  it('answers a query name or value that is not UTF-8 once percent-decoded with 400, API in JSON naming the parameter', async () => {
    reached.length = 0;
    // a lone surrogate's CESU bytes, a stray continuation byte, a truncated sequence, an overlong encoding
    for (const v of ['%ED%A0%80abc', '%FF', 'a%C3', '%C0%AF']) {
      const r = await send('GET', `/api/v1/logs/search?q=${v}&limit=5`);
      expect(r.status, v).toBe(400);
      expect(JSON.parse(r.body).error).toMatchObject({ code: 'validation', fields: { q: expect.stringMatching(/not valid UTF-8/i) } });
    }
    const named = await send('GET', '/api/v1/jobs?%FFq=1');
    expect(JSON.parse(named.body).error.fields).toEqual({ '%FFq': expect.stringMatching(/name is not valid UTF-8/) });
    const page = await send('GET', '/runs?jobId=%FF');
    expect(page.status).toBe(400);
    expect(page.headers['content-type']).toMatch(/^text\/plain/);
    expect(page.body).toMatch(/jobId/);
    expect(reached).toEqual([]);
  });

  it('answers a parameter named __proto__ (which Next drops before a route could refuse it) with 400 naming it, written plainly or percent-encoded', async () => {
    reached.length = 0;
    for (const name of ['__proto__', '%5F%5Fproto%5F%5F']) {
      const r = await send('GET', `/api/v1/runs?${name}=x&limit=1`);
      // (JSON.parse: in an object literal `__proto__:` would set the prototype, not a key)
      expect([r.status, JSON.parse(r.body).error]).toEqual([400, { code: 'validation', message: 'Unknown query parameter __proto__', fields: JSON.parse('{"__proto__": "Unknown query parameter"}') }]);
      expect(Object.keys(JSON.parse(r.body).error.fields)).toEqual(['__proto__']);
    }
    expect((await send('GET', '/runs?__proto__=x')).status).toBe(400);
    expect(reached).toEqual([]);
    // other names of Object.prototype's properties reach the route, whose own check refuses them
    expect((await send('GET', '/api/v1/runs?constructor=1')).body).toBe('next');
  });

  it('reads the path of an absolute-form target', () => {
    expect(guardRequest('GET', 'http://host/api/v1/jobs/%ff?x')?.status).toBe(400);
    expect(guardRequest('GET', 'http://host/api/v1/jobs/ok?x=%ff')?.status).toBe(400);
    expect(guardRequest('GET', 'http://host/api/v1/jobs/ok?x=%C3%A9#%ff')).toBeNull();
  });
});
