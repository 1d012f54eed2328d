import { describe, expect, it } from 'vitest';
import { cutOutsideSecrets, malformedSecretReference, maskedTexts, maskSecrets, maskSecretsDeep, MissingSecretError, resolveSecretReferences, secretNamesIn } from './secret-references.ts';

const secrets = new Map([
  ['API_TOKEN', 'tok-123456'],
  ['db_password', 'p@ss"word\\x'],
  ['KEY_PEM', '-----BEGIN KEY-----\nAAAABBBBCCCC\nDDDD\n-----END KEY-----'],
]);

describe('secret references', () => {
  it('finds the names in string values at any depth, each once, not in keys', () => {
    const config = { headers: { Authorization: 'Bearer ${{ secrets.API_TOKEN }}', '${{ secrets.IN_KEY }}': 'x' }, env: ['${{secrets.db_password}}', 1, null] };
    expect(secretNamesIn(config, { again: '${{  secrets.API_TOKEN  }}' })).toEqual(['API_TOKEN', 'db_password']);
    expect(secretNamesIn({ plain: 'no ${ secrets.X } here', dollars: '${{ env.HOME }}' }, undefined, 42)).toEqual([]);
  });

  it('resolves every reference in place and leaves an object with none untouched', () => {
    const payload = { url: 'https://x.example/?t=${{ secrets.API_TOKEN }}&u=${{ secrets.API_TOKEN }}', list: [{ pw: '${{ secrets.db_password }}' }], n: 3 };
    expect(resolveSecretReferences(payload, secrets)).toEqual({ url: 'https://x.example/?t=tok-123456&u=tok-123456', list: [{ pw: 'p@ss"word\\x' }], n: 3 });
    expect(payload.list[0]!.pw).toBe('${{ secrets.db_password }}'); // the task's own settings are not changed
    // an own `__proto__` key (JSON.parse makes one) stays a key of the copy, not its prototype
    const proto = resolveSecretReferences(JSON.parse('{"__proto__": {"h": "${{ secrets.API_TOKEN }}"}}'), secrets) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toEqual({ h: 'tok-123456' });
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    const none = { a: { b: ['c'] } };
    expect(resolveSecretReferences(none, secrets)).toBe(none);
  });

  it('names every secret the worker lacks', () => {
    expect(() => resolveSecretReferences({ a: '${{ secrets.NOPE }} ${{ secrets.API_TOKEN }} ${{ secrets.ALSO_NOPE }}' }, secrets)).toThrow(MissingSecretError);
    let thrown: unknown;
    try {
      resolveSecretReferences({ a: '${{ secrets.NOPE }}', b: ['${{ secrets.ALSO_NOPE }}'] }, secrets);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toMatchObject({ names: ['ALSO_NOPE', 'NOPE'], message: 'secrets ALSO_NOPE, NOPE not set on this worker' });
  });

  it('finds a reference that is not one, with its path', () => {
    expect(malformedSecretReference({ headers: { a: 'Bearer ${{ secrets.API_TOKEN }}' } })).toBeNull();
    expect(malformedSecretReference({ headers: { a: 'Bearer ${{ secrets.api-token }}' } })).toEqual({ path: 'headers.a', text: 'Bearer ${{ secrets.api-token }}' });
    expect(malformedSecretReference({ env: ['ok', '${{ secrets.X }'] })).toEqual({ path: 'env.1', text: '${{ secrets.X }' });
    expect(malformedSecretReference({ a: '${{ secrets.1X }}' })?.path).toBe('a');
    expect(malformedSecretReference({ a: '${{ other.X }}' })).toBeNull();
  });
});

describe('masking', () => {
  const masked = maskedTexts(secrets.values());

  it('masks whole values and each line of a multi-line one, longest first; not values under 4 characters', () => {
    expect(masked).toContain(secrets.get('KEY_PEM'));
    expect(masked).toEqual(expect.arrayContaining(['AAAABBBBCCCC', 'DDDD', '-----BEGIN KEY-----', 'tok-123456']));
    expect(maskedTexts(['abc', 'abcd'])).toEqual(['abcd']);
    expect(maskSecrets('sent tok-123456 and tok-123456', masked)).toBe('sent *** and ***');
    expect(maskSecrets('line: AAAABBBBCCCC', masked)).toBe('line: ***');
    expect(maskSecrets(`whole: ${secrets.get('KEY_PEM')}`, masked)).toBe('whole: ***');
    expect(maskSecrets('nothing secret', masked)).toBe('nothing secret');
  });

  it('masks strings and keys of a JSON value, and leaves the rest', () => {
    const out = maskSecretsDeep({ body: { echoed: 'Bearer tok-123456', 'tok-123456': 1, n: 123456, list: ['p@ss"word\\x'] } }, masked);
    expect(out).toEqual({ body: { echoed: 'Bearer ***', '***': 1, n: 123456, list: ['***'] } });
    const withProtoKey = JSON.parse('{"__proto__": "tok-123456", "x": {"__proto__": {"polluted": true}}}');
    const masked2 = maskSecretsDeep(withProtoKey, masked) as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(masked2, '__proto__')?.value).toBe('***');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const same = { a: 'tok-123456' };
    expect(maskSecretsDeep(same, [])).toBe(same);
  });
});

describe('masking values that overlap', () => {
  it('masks both of two values whose occurrences overlap, whichever is longer', () => {
    const masked = maskedTexts(['TOKEN-AAAA-1', '1-BBBB-SECRET-TAIL']);
    // the two share the `1`: masking the longer one first used to leave `TOKEN-AAAA-` readable
    expect(maskSecrets('sent TOKEN-AAAA-1-BBBB-SECRET-TAIL now', masked)).toBe('sent *** now');
    expect(maskSecrets('TOKEN-AAAA-1 and 1-BBBB-SECRET-TAIL', masked)).toBe('*** and ***');
    expect(maskSecrets('aaaaa', maskedTexts(['aaaa']))).toBe('***');
  });
});

describe('masking deep values', () => {
  it('masks a value nested deeper than the walk goes, as a whole part', () => {
    const masked = maskedTexts(['tok-123456']);
    let deep: unknown = { token: 'Bearer tok-123456' };
    let plain: unknown = { n: 'nothing' };
    for (let i = 0; i < 100; i++) {
      deep = { a: deep };
      plain = { a: plain };
    }
    expect(JSON.stringify(maskSecretsDeep(deep, masked))).not.toContain('tok-123456');
    expect(maskSecretsDeep(plain, masked)).toEqual(plain);
  });
});

describe('masking values in URLs', () => {
  it('masks a value as a URL path or query writes it, percent-encoded', () => {
    const pw = 'p@ss wörd{1}"';
    const masked = maskedTexts([pw]);
    // the http executor logs and names `origin + pathname`: the path as the URL parser encoded it
    const url = new URL(`https://api.example/v1/${pw}/sync`);
    expect(maskSecrets(`GET ${url.origin}${url.pathname}`, masked)).toBe('GET https://api.example/v1/***/sync');
    expect(maskSecrets(`token=${encodeURIComponent(pw)}&x=1`, masked)).toBe('token=***&x=1');
    expect(maskedTexts(['\ud800abcd'])).toContain('%EF%BF%BDabcd');
  });
});

describe('cutting a long line outside secret values', () => {
  it('moves the cut to the start of a value across it, of one beginning at the end of the text, and again when that lands in another', () => {
    expect(cutOutsideSecrets('xxxxSECRETyyyy', 7, ['SECRET'])).toBe(4);
    expect(cutOutsideSecrets('xxxxSECRETyyyy', 4, ['SECRET'])).toBe(4); // before it already
    expect(cutOutsideSecrets('xxxxSECRETyyyy', 10, ['SECRET'])).toBe(10); // after it
    expect(cutOutsideSecrets('xxxxxxxxSEC', 9, ['SECRET'])).toBe(8); // its rest may come with the next chunk
    expect(cutOutsideSecrets('xxxxxxxxSEX', 9, ['SECRET'])).toBe(9);
    expect(cutOutsideSecrets('xxABCDEFGHyy', 7, ['EFGH', 'ABCDE'])).toBe(2); // moved into ABCDE by EFGH's start
    expect(cutOutsideSecrets('SECRETyyyy', 3, ['SECRET'])).toBe(3); // starts at 0: longer than the piece
    expect(cutOutsideSecrets('xxxxSECRETyyyy', 7, [])).toBe(7);
  });
});

