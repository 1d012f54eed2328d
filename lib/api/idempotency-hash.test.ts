import { describe, expect, it } from 'vitest';
import { requestHash } from './idempotency.ts';
import { canonicalJson } from './json-guard.ts';

describe('requestHash (what an Idempotency-Key replay must repeat)', () => {
  it('counts a JSON body by its value: key order and spacing do not matter, values do', () => {
    const a = requestHash('POST', '/api/v1/jobs', '{"key":"a","name":"n","payload":{"x":1,"y":[1,{"b":2,"a":1}]}}');
    const b = requestHash('post', '/api/v1/jobs', '{ "payload": { "y": [1, { "a": 1, "b": 2 }], "x": 1 }, "name": "n", "key": "a" }');
    expect(a[0]).toBe(b[0]);
    expect(requestHash('POST', '/api/v1/jobs', '{"key":"b","name":"n"}')[0]).not.toBe(requestHash('POST', '/api/v1/jobs', '{"key":"a","name":"n"}')[0]);
    // array order is part of the value
    expect(requestHash('POST', '/x', '[1,2]')[0]).not.toBe(requestHash('POST', '/x', '[2,1]')[0]);
    // path and method are part of the request
    expect(requestHash('POST', '/x', '{}')[0]).not.toBe(requestHash('PATCH', '/x', '{}')[0]);
    expect(requestHash('POST', '/x?a=1', '{}')[0]).not.toBe(requestHash('POST', '/x', '{}')[0]);
  });

  it('also answers the hash of the text, which keys stored before were hashed by; a body that is not JSON counts by its text', () => {
    const body = '{"name":"n","key":"a"}';
    const [byValue, byText] = requestHash('POST', '/x', body);
    expect(byText).toBeDefined();
    expect(byText).not.toBe(byValue);
    expect(requestHash('POST', '/x', '{"key":"a","name":"n"}')).toEqual([byValue]);
    expect(requestHash('POST', '/x', 'not json')).toHaveLength(1);
    expect(requestHash('POST', '/x', '')).toHaveLength(1);
  });

  it('counts by its text a body whose value lost something: a key written twice, a number past ±1.8e308', () => {
    // JSON.parse keeps the last of a duplicated key: that body is refused, and must not replay the other's answer
    expect(requestHash('POST', '/x', '{"key":"a","key":"b"}')[0]).not.toBe(requestHash('POST', '/x', '{"key":"b"}')[0]);
    expect(requestHash('POST', '/x', '{"p":{"x":1,"x":1}}')).toHaveLength(1);
    // 1e400 parses to Infinity, which JSON.stringify would write null
    expect(requestHash('POST', '/x', '{"x":1e400}')[0]).not.toBe(requestHash('POST', '/x', '{"x":null}')[0]);
  });

  it('writes a value as the update-that-changes-nothing check compares it (lib/api/json-guard.ts canonicalJson)', () => {
    expect(canonicalJson(JSON.parse('{"b":[1,{"d":1,"c":2}],"a":"é"}'))).toBe('{"a":"é","b":[1,{"c":2,"d":1}]}');
    expect(requestHash('POST', '/x', '{"b":1,"a":2}')[0]).toBe(requestHash('POST', '/x', canonicalJson({ a: 2, b: 1 }))[0]);
  });
});
