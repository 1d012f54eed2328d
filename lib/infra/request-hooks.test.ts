import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRequestHook } from './request-hooks.ts';

describe('addRequestHook', () => {
  const seen: string[] = [];
  let server: http.Server;
  let base = '';

  beforeAll(async () => {
    addRequestHook((req, _res, next) => {
      seen.push(`first ${req.url}`);
      return next();
    });
    addRequestHook((req, res, next) => {
      seen.push(`second ${req.url}`);
      if (req.url !== '/answered-by-hook') return next();
      res.writeHead(418, { 'content-type': 'text/plain' });
      res.end('hook');
      return true;
    });
    server = http.createServer((req, res) => {
      seen.push(`listener ${req.url}`);
      res.end('listener');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('runs the hooks in the order they were added, then the server listener', async () => {
    seen.length = 0;
    const res = await fetch(`${base}/plain`);
    expect(await res.text()).toBe('listener');
    expect(seen).toEqual(['first /plain', 'second /plain', 'listener /plain']);
  });

  it('a hook that answers keeps the request from the later hooks and the listener', async () => {
    seen.length = 0;
    const res = await fetch(`${base}/answered-by-hook`);
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('hook');
    expect(seen).toEqual(['first /answered-by-hook', 'second /answered-by-hook']);
  });
});
