import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.ts';

const id = '00000000-0000-4000-8000-000000000000';

describe('decodeCursor', () => {
  it('gives back what encodeCursor made for the same sort', () => {
    expect(decodeCursor(encodeCursor({ s: 'jobs:key:asc', v: 'a.b', id }), 'jobs:key:asc')).toEqual({ s: 'jobs:key:asc', v: 'a.b', id });
  });

  it('refuses a forged cursor whose bytes are not UTF-8 instead of reading U+FFFD in their place', () => {
    const good = Buffer.from(JSON.stringify({ s: 'jobs:key:asc', v: 'a-b', id }));
    const bytes = Buffer.concat([good.subarray(0, good.indexOf('a-b') + 1), Buffer.from([0xff]), good.subarray(good.indexOf('a-b') + 2)]);
    expect(() => decodeCursor(bytes.toString('base64url'), 'jobs:key:asc')).toThrow(expect.objectContaining({ fields: { cursor: expect.any(String) } }));
  });

  it('refuses a forged value PostgreSQL would refuse (a 400 naming cursor, never a 500)', () => {
    for (const v of ['\u0000', 'x\uD800y']) {
      const forged = Buffer.from(JSON.stringify({ s: 'jobs:key:asc', v, id })).toString('base64url');
      expect(() => decodeCursor(forged, 'jobs:key:asc')).toThrow(expect.objectContaining({ code: 'validation', fields: { cursor: expect.any(String) } }));
    }
    expect(() => decodeCursor(encodeCursor({ s: 'jobs:name:asc', v: 'a', id }), 'jobs:key:asc')).toThrow(/Invalid cursor/);
  });
});
