import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import nextConfig from '../../next.config.ts';
import { ACTION_BODY_LIMIT_BYTES, actionBodyRefusal, formPostBodyRefusal } from './action-body.ts';

// The browser's encoder: Next's client sends React's encodeReply of the argument list.
const { encodeReply } = createRequire(import.meta.url)('next/dist/compiled/react-server-dom-webpack/client.node.js') as {
  encodeReply: (args: unknown[]) => Promise<string | FormData>;
};

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request('http://console.test/jobs/1', { method: 'POST', body, headers: { 'next-action': 'abc', ...headers } });

describe('actionBodyRefusal (lib/auth/action-body.ts)', () => {
  it('lets through what the browser sends: encodeReply as text and as FormData', async () => {
    const form = new FormData();
    form.set('name', 'Nightly');
    form.set('file', new Blob(['0 3 * * * backup\n']), 'crontab');
    for (const args of [[], ['abc', '$1', '$', ''], [-0, NaN, Infinity, -Infinity, -5n], [{ a: 1, at: new Date(0) }], [undefined, 1n], ['id', form], [{ email: '' }, form]]) {
      // Request sets the content type as fetch() does: text/plain;charset=UTF-8, or multipart/form-data with its boundary
      expect(await actionBodyRefusal(post(await encodeReply(args))), JSON.stringify(args, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).toBeNull();
    }
  });

  it('refuses a text body that is not a JSON array, or empty, naming the body', async () => {
    const text = { 'content-type': 'text/plain;charset=UTF-8' };
    for (const [body, why] of [
      ['not json', /not JSON/],
      ['', /empty/],
      ['{"a":1}', /not an array/],
      ['5', /not an array/],
      ['["$1"]', /reference no action takes/],
      ['[{"a":["$@1"]}]', /reference no action takes/],
      ['["$nabc"]', /reference no action takes/],
      // a temporary reference, and a FormData, which only a multipart body carries
      ['["$T"]', /reference no action takes/],
      ['["$K1"]', /reference no action takes/],
      // decodeReply recurses: about 5,000 levels overflow its stack
      [`${'['.repeat(5000)}${']'.repeat(5000)}`, /nests deeper than 100 levels/],
    ] as const) {
      expect(await actionBodyRefusal(post(body, text))).toEqual({ field: '_body', message: expect.stringMatching(why) });
    }
    expect(await actionBodyRefusal(post(null, text))).toEqual({ field: '_body', message: expect.stringMatching(/empty/) });
    expect(await actionBodyRefusal(post(new Uint8Array([0x5b, 0x22, 0xff, 0x22, 0x5d]), text))).toEqual({ field: '_body', message: expect.stringMatching(/UTF-8/) });
  });

  it('refuses a multipart body that does not parse, or has no JSON array in field 0', async () => {
    const mp = { 'content-type': 'multipart/form-data; boundary=XYZ' };
    const part = (name: string, value: string) => `--XYZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    for (const [body, why] of [
      [`${part('0', '["x"]')}--WRONG--\r\n`, /not multipart/],
      ['', /empty/],
      [`${part('1', '["x"]')}--XYZ--\r\n`, /no text field 0/],
      [`${part('0', 'not json')}--XYZ--\r\n`, /Field 0 .* not JSON/],
    ] as const) {
      expect(await actionBodyRefusal(post(body, mp))).toEqual({ field: '_body', message: expect.stringMatching(why) });
    }
    expect(await actionBodyRefusal(post(`${part('0', '["x"]')}--XYZ--\r\n`, mp))).toBeNull();
    // references to parts, Maps, Blobs, server references: no action takes them, and a missing or malformed one is decodeReply's 500
    for (const root of ['["$1"]', '["$Q1"]', '["$W1"]', '["$B1"]', '["$h1"]', '["$nabc"]', '[{"a":"$@2"}]']) {
      const body = `${part('0', root)}${part('1', 'not json')}--XYZ--\r\n`;
      expect(await actionBodyRefusal(post(body, mp)), root).toEqual({ field: '_body', message: expect.stringMatching(/reference no action takes/) });
    }
    expect(await actionBodyRefusal(post(`${part('0', `${'['.repeat(200)}${']'.repeat(200)}`)}--XYZ--\r\n`, mp))).toEqual({ field: '_body', message: expect.stringMatching(/nests deeper/) });
    // the sign-in form: its state and a FormData whose fields are 1_email and 1_password
    expect(await actionBodyRefusal(post(`${part('0', '[{"email":""},"$K1"]')}${part('1_email', 'a@b.c')}--XYZ--\r\n`, mp))).toBeNull();
  });

  it('refuses another content type, or none, naming Content-Type', async () => {
    for (const headers of [{ 'content-type': 'application/json' }, { 'content-type': 'application/x-www-form-urlencoded' }, {}] as Record<string, string>[]) {
      const req = new Request('http://console.test/', { method: 'POST', body: new Uint8Array([0x5b, 0x5d]), headers: { 'next-action': 'abc', ...headers } });
      expect(await actionBodyRefusal(req)).toEqual({ field: 'content-type', message: expect.stringMatching(/Content-Type/) });
    }
  });

  it('refuses a body over the limit as too large (a 413: Next\'s own refusal is a 500), reading no more than the limit', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled += 1024;
        c.enqueue(new Uint8Array(1024).fill(0x20));
      },
    });
    const tooLarge = { field: '_body', message: expect.stringMatching(/larger than/), tooLarge: true };
    const req = new Request('http://console.test/', { method: 'POST', body: endless, duplex: 'half', headers: { 'next-action': 'abc', 'content-type': 'text/plain' } } as RequestInit);
    expect(await actionBodyRefusal(req, 10_000)).toEqual(tooLarge);
    expect(pulled).toBeLessThan(20_000);
    const declared = post('x'.repeat(20), { 'content-type': 'text/plain', 'content-length': String(ACTION_BODY_LIMIT_BYTES + 1) });
    expect(await actionBodyRefusal(declared)).toEqual(tooLarge);
    // a form posted without Next-Action (before hydration), the same
    const form = post('x'.repeat(20), { 'content-type': 'multipart/form-data; boundary=XYZ', 'content-length': String(ACTION_BODY_LIMIT_BYTES + 1) });
    expect(await formPostBodyRefusal(form)).toEqual(tooLarge);
    const fits = post('--XYZ\r\nContent-Disposition: form-data; name="0"\r\n\r\n["x"]\r\n--XYZ--\r\n', { 'content-type': 'multipart/form-data; boundary=XYZ' });
    expect(await formPostBodyRefusal(fits)).toBeNull();
  });

  it("the limit is Next's serverActions.bodySizeLimit (next.config.ts sets no other)", () => {
    expect((nextConfig.experimental as { serverActions?: { bodySizeLimit?: unknown } } | undefined)?.serverActions?.bodySizeLimit).toBeUndefined();
  });
});
