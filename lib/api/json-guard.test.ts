import { describe, expect, it } from 'vitest';
import { hasLoneSurrogate, MAX_JSON_DEPTH, NON_FINITE_MESSAGE, NUL_MESSAGE, PROTO_KEY_MESSAGE, scanJson, SURROGATE_MESSAGE, unstorableString } from './json-guard.ts';

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
