import { describe, expect, it } from 'vitest';
import { afterCreatedAt, createdAtPage, cursorPositiveInt, decodeCursor, encodeCursor } from './cursor.ts';

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

describe('cursorPositiveInt', () => {
  it('reads a version number and refuses anything else at `cursor`', () => {
    expect(cursorPositiveInt({ s: 'versions', v: 7, id })).toBe(7);
    for (const v of [0, -1, 1.5, 2 ** 31, '7', null]) {
      expect(() => cursorPositiveInt({ s: 'versions', v, id })).toThrow(expect.objectContaining({ code: 'validation', fields: { cursor: expect.any(String) } }));
    }
  });
});

describe('createdAtPage and afterCreatedAt', () => {
  const at = new Date('2026-03-01T00:00:00.123Z');
  const rows = ['3', '2', '1'].map((n) => ({ id: `00000000-0000-4000-8000-00000000000${n}`, createdAt: at }));

  it('gives the cursor after the last row shown only when the extra row says there is more', () => {
    const page = createdAtPage(rows, 2, 'silences');
    expect(page.items).toEqual(rows.slice(0, 2));
    expect(decodeCursor(page.nextCursor!, 'silences')).toEqual({ s: 'silences', v: at.toISOString(), id: rows[1]!.id });
    expect(createdAtPage(rows, 3, 'silences').nextCursor).toBeNull();
    expect(createdAtPage([], 3, 'silences')).toEqual({ items: [], nextCursor: null });
  });

  it('reads after (createdAt, id): an older instant, or the same instant and a smaller id', () => {
    const { nextCursor } = createdAtPage(rows, 2, 'silences');
    expect(afterCreatedAt(nextCursor!, 'silences')).toEqual({ OR: [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: rows[1]!.id } }] });
    expect(afterCreatedAt(undefined, 'silences')).toEqual({});
    expect(() => afterCreatedAt(nextCursor!, 'job-audit')).toThrow(/Invalid cursor/);
    expect(() => afterCreatedAt(encodeCursor({ s: 'silences', v: 'yesterday', id }), 'silences')).toThrow(/Invalid cursor/);
  });
});
