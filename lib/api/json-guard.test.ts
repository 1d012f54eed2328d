import { describe, expect, it } from 'vitest';
import { decodeUtf8, DUPLICATE_KEY_MESSAGE, duplicateKeys, hasLoneSurrogate, MAX_JSON_DEPTH, NON_FINITE_MESSAGE, NUL_MESSAGE, PROTO_KEY_MESSAGE, scanJson, SURROGATE_MESSAGE, unstorableString } from './json-guard.ts';

describe('json-guard', () => {
  it('finds unpaired surrogates, not pairs', () => {
    expect(hasLoneSurrogate('a\ud800')).toBe(true);
    expect(hasLoneSurrogate('\udc00b')).toBe(true);
    expect(hasLoneSurrogate('\ude00\ud83d')).toBe(true); // low before high: both unpaired
    expect(hasLoneSurrogate('\ud83d\ude00')).toBe(false); // 😀
    expect(hasLoneSurrogate('plain')).toBe(false);
    expect(unstorableString('x\u0000')).toBe(NUL_MESSAGE);
    expect(unstorableString('x\ud800')).toBe(SURROGATE_MESSAGE);
    expect(unstorableString('ok')).toBeNull();
  });

  it('reports every kind of problem at its path', () => {
    const { problems, tooDeep } = scanJson({ a: ['ok', { b: 'x\u0000' }], ['k\ud800']: 1, n: Infinity, m: -Infinity });
    expect(tooDeep).toBe(false);
    expect(problems).toEqual(expect.arrayContaining([
      { path: ['a', 1, 'b'], message: NUL_MESSAGE },
      { path: ['k\ud800'], message: `Field name ${SURROGATE_MESSAGE.charAt(0).toLowerCase()}${SURROGATE_MESSAGE.slice(1)}` },
      { path: ['n'], message: NON_FINITE_MESSAGE },
      { path: ['m'], message: NON_FINITE_MESSAGE },
    ]));
    expect(problems).toHaveLength(4);
  });

  it('refuses a __proto__ key (as JSON.parse makes it: an own key)', () => {
    expect(scanJson(JSON.parse('{"a":{"__proto__":{"x":1}}}')).problems).toEqual([{ path: ['a', '__proto__'], message: PROTO_KEY_MESSAGE }]);
  });

  it('walks a 100,000-level value without recursion and names a problem at its full path', () => {
    let v: unknown = 'bad\u0000';
    for (let i = 0; i < 100_000; i++) v = [v];
    const { problems } = scanJson(v);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.path).toHaveLength(100_000);
    expect(scanJson(v, { maxDepth: MAX_JSON_DEPTH })).toEqual({ problems: [], tooDeep: true });
  });
});

describe('duplicateKeys', () => {
  it('names every key written twice in one object at its path, escapes decoded', () => {
    expect(duplicateKeys('{"key":"dup.a","key":"dup.b","name":"d","name":"e"}')).toEqual([
      { path: ['key'], message: DUPLICATE_KEY_MESSAGE },
      { path: ['name'], message: DUPLICATE_KEY_MESSAGE },
    ]);
    expect(duplicateKeys('{"steps":[{"key":"a"},{"key":"b","handler":"x","handler":"y"}]}')).toEqual([{ path: ['steps', 1, 'handler'], message: DUPLICATE_KEY_MESSAGE }]);
    expect(duplicateKeys('{"payload":{"a\\"b":1,"a\\u0022b":2}}')).toEqual([{ path: ['payload', 'a"b'], message: DUPLICATE_KEY_MESSAGE }]);
    expect(duplicateKeys('{"":1,"":2}')).toEqual([{ path: [''], message: DUPLICATE_KEY_MESSAGE }]);
    expect(duplicateKeys(' [ {"a":1} , {"a" : 2, "b":{"a":3}}, "\\\\", {"x":"\\\\\\"","x":0} ] ')).toEqual([{ path: [3, 'x'], message: DUPLICATE_KEY_MESSAGE }]);
  });

  it('does not confuse values, strings holding quotes or braces, or keys of different objects with keys', () => {
    expect(duplicateKeys('{"a":"a","b":"{\\"a\\":1,\\"a\\":2}","c":{"a":1},"d":[{"a":1},{"a":1}],"e":"a"}')).toEqual([]);
    expect(duplicateKeys('{}')).toEqual([]);
    expect(duplicateKeys('[1,2,"x"]')).toEqual([]);
    expect(duplicateKeys('"{\\"a\\":1,\\"a\\":2}"')).toEqual([]);
  });

  it('scans a 1 MB body of 1,000 run objects and 100,000 nested levels (no recursion to overflow)', () => {
    const runs = JSON.stringify({ runs: Array.from({ length: 1000 }, (_, i) => ({ payload: { i, text: 'x'.repeat(900), list: [1, 2, 3], k: { a: 1, b: 2 } } })) });
    expect(duplicateKeys(runs)).toEqual([]);
    const deep = '{"a":'.repeat(100_000) + '{"b":1,"b":2}' + '}'.repeat(100_000);
    const found = duplicateKeys(deep);
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toHaveLength(100_001);
  });
});

describe('decodeUtf8', () => {
  it('decodes UTF-8 and refuses other bytes instead of putting U+FFFD in their place', () => {
    expect(decodeUtf8(Buffer.from('{"name":"é 😀"}'))).toBe('{"name":"é 😀"}');
    expect(decodeUtf8(Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]))).toBeNull();
    expect(decodeUtf8(Buffer.from([0xc3]))).toBeNull(); // a sequence cut short
    expect(decodeUtf8(Buffer.from([0xed, 0xa0, 0x80]))).toBeNull(); // an encoded surrogate (CESU-8)
    expect(decodeUtf8(Buffer.from('\ufeff{}'))).toBe('{}');
  });
});
