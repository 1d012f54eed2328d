import { describe, expect, it } from 'vitest';
import { builtinInputSchema, checkBuiltinInput } from './builtin-schemas.ts';
import { assertRunPayloadsFit } from './check-payloads.ts';

const paths = (handler: string, v: Record<string, unknown>, complete = false) => checkBuiltinInput(handler, v, complete).map((i) => i.path.join('.'));

describe('shipped executors\' inputs (lib/handlers/builtin-schemas.ts)', () => {
  it.each([
    ['http', { url: 123 }, ['url']],
    ['http', { url: 'ftp://x' }, ['url']],
    ['http', { url: 'https://api.example.com/v1?key=${{ secrets.API_KEY }} x' }, ['url']],
    // credentials in the URL: fetch refuses them, and every role reads a job's payload
    ['http', { url: 'http://user:secretpw@127.0.0.1:3581/x?token=1' }, ['url']],
    ['http', { url: 'https://token@api.example.com/' }, ['url']],
    ['http', { url: 'http:/u:p@example.com/' }, ['url']],
    ['http', { url: 'http:\\\\u:p@example.com/' }, ['url']],
    ['http', { url: 'http:u:p@example.com/' }, ['url']],
    ['http', { url: ' http://u:p@example.com/' }, ['url']],
    ['http', { method: 'G E T', headers: { 'a b': 'c' } }, ['method', 'headers.a b']],
    ['http', { url: 'https://x.test', headers: { a: 'x\r\nInjected: 1' } }, ['headers.a']],
    ['http', { expectStatus: 'abc' }, ['expectStatus']],
    ['http', { expectStatus: [200, 700] }, ['expectStatus.1']],
    ['sql', { sql: '' }, ['sql']],
    ['sql', { sql: 'select 1', params: 'x' }, ['params']],
    ['shell', { command: 'ls -l' }, ['command']],
    ['shell', { command: ['/bin/echo', 1] }, ['command.1']],
    ['shell', { command: ['/bin/true'], cwd: 'relative', env: { 'A-B': 'x' } }, ['cwd', 'env.A-B']],
  ])('%s %o is refused at %o whatever layer may follow', (handler, value, expected) => {
    expect(paths(handler, value)).toEqual(expected);
  });

  it.each([
    ['http', { url: 'https://x.test', method: 'post', headers: { 'x-n': 1 }, expectStatus: ['201', 204], body: { a: 1 } }],
    ['http', { other: 'keys of a shared job payload are fine' }],
    ['http', { url: 'https://api.example.com/users/a@b.example?to=c@d.example' }],
    // a worker secret named in the URL (docs/security.md "Worker secrets"): checked with its value by the worker
    ['http', { url: 'https://api.example.com/v1?key=${{ secrets.API_KEY }}', headers: { Authorization: 'Bearer ${{ secrets.API_TOKEN }}' } }],
    ['http', { url: 'https://${{ secrets.API_HOST }}/v1' }],
    ['sql', { statement: 'select $1', params: [1], connection: null }],
    ['shell', { argv: ['/bin/echo', 'hi'], env: { A_B: 'x' }, input: 'text', cwd: '/tmp' }],
  ])('%s %o fits', (handler, value) => {
    expect(paths(handler, value)).toEqual([]);
  });

  it('asks for required fields only when the whole merge is known', () => {
    expect(paths('http', {})).toEqual([]);
    expect(paths('http', {}, true)).toEqual(['url']);
    expect(paths('sql', {}, true)).toEqual(['sql']);
    expect(paths('sql', { statement: 'select 1' }, true)).toEqual([]);
    expect(paths('shell', { argv: ['/bin/true'] }, true)).toEqual([]);
  });

  it('judges grpc\'s config whole (strict)', () => {
    expect(paths('grpc', {}).sort()).toEqual(['address', 'method', 'proto', 'service']);
    expect(paths('grpc', { address: 'h:1', service: 's', method: 'm', proto: 'p', port: 1 })).toEqual(['port']);
  });

  it('a trigger override names the field under its own path', () => {
    const steps = [{ key: 'main', handler: 'http', payload: {}, config: {} }];
    expect(() => assertRunPayloadsFit(steps, {}, [{ payload: { url: 123 }, field: 'runs.1.payload' }])).toThrow(/runs\.1\.payload\.url/);
    expect(() => assertRunPayloadsFit(steps, {}, [{ payload: { x: 1 }, field: 'payload' }])).toThrow(/payload\.url: http \(step main\): is required/);
    expect(() => assertRunPayloadsFit(steps, { url: 'https://x.test' }, [{ payload: { x: 1 }, field: 'payload' }])).not.toThrow();
  });

  it('shows every built-in with inputs as JSON Schema', () => {
    expect(builtinInputSchema('builtin.noop')).toBeNull();
    expect(builtinInputSchema('http')).toMatchObject({ type: 'object', required: ['url'], properties: { url: { type: 'string' } } });
    expect(builtinInputSchema('sql')).toMatchObject({ allOf: [{ anyOf: [{ required: ['sql'] }, { required: ['statement'] }] }] });
    expect(builtinInputSchema('shell')).toMatchObject({ properties: { killGraceMs: { type: 'number', minimum: 0 } } });
    expect(builtinInputSchema('builtin.sleep')).toMatchObject({ properties: { ms: { type: 'number', maximum: 604800000 } } });
    expect(builtinInputSchema('grpc')).toMatchObject({ required: expect.arrayContaining(['address', 'proto']) });
  });
});

describe('a handler named like Object.prototype\'s properties (lib/own-keys.ts)', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])('%s is no shipped handler: no input schema, no issues, payloads not judged', (name) => {
    expect(checkBuiltinInput(name, { url: 1 }, true)).toEqual([]);
    expect(builtinInputSchema(name)).toBeNull();
  });
});
