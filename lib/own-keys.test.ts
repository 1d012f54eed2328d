import { describe, expect, it } from 'vitest';
import { dictionary, ownValue } from './own-keys.ts';

const INHERITED = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', 'isPrototypeOf'];

describe('records keyed by outside names (lib/own-keys.ts)', () => {
  it('ownValue reads own keys only: a name of Object.prototype is undefined unless the record holds it', () => {
    const table: Record<string, number> = { a: 1 };
    for (const k of INHERITED) expect(ownValue(table, k)).toBeUndefined();
    expect(ownValue(table, 'a')).toBe(1);
    expect(ownValue(JSON.parse('{"constructor": 2}') as Record<string, number>, 'constructor')).toBe(2);
    expect(ownValue(null, 'a')).toBeUndefined();
    expect(ownValue(undefined, 'constructor')).toBeUndefined();
  });

  it('dictionary keeps every name, __proto__ included, as an own key, and serialises as a plain object', () => {
    const d = dictionary<string>();
    for (const k of INHERITED) expect(d[k]).toBeUndefined();
    for (const k of INHERITED) d[k] = `v-${k}`;
    expect(Object.keys(d).sort()).toEqual([...INHERITED].sort());
    expect(JSON.parse(JSON.stringify(d))).toEqual(Object.fromEntries(INHERITED.map((k) => [k, `v-${k}`])));
    expect(Object.getPrototypeOf(d)).toBeNull();
    // nothing reached Object or Object.prototype
    expect(Object.hasOwn(Object.prototype, 'v-constructor')).toBe(false);
    expect(({} as Record<string, unknown>).toString).toBe(Object.prototype.toString);
  });
});
