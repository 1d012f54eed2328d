import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { proxy } from '../../proxy.ts';
import { crossOriginActionRefusal, mayBeServerAction } from './action-origin.ts';

const h = (o: Record<string, string>) => new Headers(o);

describe('server actions from another origin (lib/auth/action-origin.ts, as Next checks it)', () => {
  it.each([
    [{ origin: 'http://console.test:3000', host: 'console.test:3000' }, null],
    [{ origin: 'https://public.example', host: '10.0.0.5:3000', 'x-forwarded-host': 'public.example, proxy.internal' }, null],
    [{ host: 'console.test' }, null],
    [{ origin: 'https://evil.example', host: 'console.test' }, /does not match/],
    [{ origin: 'http://console.test', host: 'console.test', 'x-forwarded-host': 'other.example' }, /does not match/],
    [{ origin: 'null', host: 'console.test' }, /does not match/],
    [{ origin: 'not a url', host: 'console.test' }, /not a URL/],
  ])('%o -> %s', (headers, expected) => {
    const r = crossOriginActionRefusal(h(headers));
    if (expected === null) expect(r).toBeNull();
    else expect(r).toMatch(expected);
  });

  it('proxy.ts answers a foreign Origin 403 (Next would answer 500) and lets a same-origin action through', async () => {
    const req = (origin: string) =>
      new NextRequest('http://console.test/jobs', { method: 'POST', body: '["id"]', headers: { 'next-action': 'abc', origin, host: 'console.test', 'content-type': 'text/plain;charset=UTF-8' } });
    const refused = await proxy(req('https://evil.example'));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden' } });
    const same = await proxy(req('http://console.test'));
    expect(same.status).toBe(200);
    expect(same.headers.get('x-middleware-next')).toBe('1');
    // a same-origin action whose body Next could not decode: 400 (lib/auth/action-body.ts)
    const garbled = await proxy(new NextRequest('http://console.test/jobs', { method: 'POST', body: 'not json', headers: { 'next-action': 'abc', origin: 'http://console.test', host: 'console.test', 'content-type': 'text/plain' } }));
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ error: { code: 'validation', fields: { _body: expect.stringMatching(/not JSON/) } } });
  });

  it('a form posted without the next-action header (before hydration): from a foreign Origin a 403, with a broken body a 400; a same-origin form goes on', async () => {
    const form = new FormData();
    form.append('$ACTION_ID_7fa2cf6e11c954aa5cba3d8b56f41462b276a8ae7d', '');
    const post = (origin: string, body: FormData | string, type?: string) =>
      new NextRequest('http://console.test/jobs', { method: 'POST', body, headers: { origin, host: 'console.test', ...(type ? { 'content-type': type } : {}) } });
    const refused = await proxy(post('http://127.0.0.1:9999', form));
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: { code: 'forbidden', message: expect.stringMatching(/same-origin only/) } });
    expect((await proxy(post('http://console.test', form))).headers.get('x-middleware-next')).toBe('1');
    // same origin with a body that is not the form its Content-Type names: 400 naming the body
    const broken = await proxy(post('http://console.test', '--AaB03x\r\nbroken', 'multipart/form-data; boundary=AaB03x'));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: 'validation', fields: { _body: expect.stringMatching(/not multipart/) } } });
    // Next never runs a URL-encoded POST as an action (it renders the page): not a form it may run
    expect(mayBeServerAction('POST', new Headers({ 'content-type': 'application/x-www-form-urlencoded' }))).toBe(false);
    expect(mayBeServerAction('GET', new Headers({ 'content-type': 'multipart/form-data; boundary=x' }))).toBe(false);
    expect(mayBeServerAction('POST', new Headers({ 'content-type': 'multipart/form-data; boundary=x' }))).toBe(true);
  });
});
