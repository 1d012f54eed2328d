import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { describeError, storableExitCode, storableOutput, TASK_ERROR_CAP_BYTES, TASK_OUTPUT_CAP_BYTES } from '../output';
import { createHandlerRegistry, HandlerError, MAX_SLEEP_MS, type HandlerContext, loggerTaskLog } from './index';

const silent = pino({ level: 'silent' });
function ctx(over: Partial<HandlerContext> = {}): HandlerContext {
  return { payload: {}, config: {}, attempt: 1, taskId: 't1', runId: 'r1', signal: new AbortController().signal, log: silent, taskLog: loggerTaskLog(silent), progress: () => undefined, timeoutMs: 10_000, ...over };
}
const registry = createHandlerRegistry({ allowShell: true, shellKillGraceMs: 300 });
const h = (name: string) => registry.get(name)!;

describe('built-in numeric inputs are validated (H1)', () => {
  it.each([1e100, Infinity, -1, 'abc', true, [5], { x: 1 }, MAX_SLEEP_MS + 1])('builtin.sleep refuses ms=%s naming payload.ms', async (ms) => {
    const err = await h('builtin.sleep')(ctx({ payload: { ms } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect((err as HandlerError).message).toMatch(/^builtin\.sleep: payload\.ms must be a finite number between 0 and 604800000 ms/);
  });

  it('builtin.sleep accepts 0, numeric strings and the default', async () => {
    expect(await h('builtin.sleep')(ctx({ payload: { ms: 0 } }))).toEqual({ sleptMs: 0 });
    expect(await h('builtin.sleep')(ctx({ payload: { ms: '5' } }))).toEqual({ sleptMs: 5 });
  });

  it('builtin.ignore-abort and builtin.flaky refuse absurd numbers', async () => {
    await expect(h('builtin.ignore-abort')(ctx({ payload: { ms: 1e100 } }))).rejects.toThrow(/payload\.ms/);
    await expect(h('builtin.flaky')(ctx({ payload: { failTimes: 1e100 } }))).rejects.toThrow(/builtin\.flaky: payload\.failTimes must be a finite integer/);
    await expect(h('builtin.flaky')(ctx({ payload: { failTimes: 1.5 } }))).rejects.toThrow(/payload\.failTimes/);
    expect(await h('builtin.flaky')(ctx({ attempt: 1, payload: { failTimes: 0 } }))).toEqual({ attempt: 1, failTimes: 0 });
  });

  it('shell refuses an absurd killGraceMs before spawning anything', async () => {
    await expect(h('shell')(ctx({ payload: { command: ['/bin/true'], killGraceMs: 1e100 } }))).rejects.toThrow(/shell: payload\.killGraceMs must be/);
  });

  it('http refuses a malformed expectStatus before sending anything', async () => {
    await expect(h('http')(ctx({ payload: { url: 'http://127.0.0.1:1/', expectStatus: 1e100 } }))).rejects.toThrow(/http: payload\.expectStatus/);
    await expect(h('http')(ctx({ payload: { url: 'http://127.0.0.1:1/', expectStatus: [] } }))).rejects.toThrow(/payload\.expectStatus/);
  });
});

describe('storable outputs and errors (runner audit)', () => {
  it('replaces U+0000 and lone surrogates in values and keys', () => {
    const r = storableOutput({ a: '\u0000x', ['k\u0000']: ['\ud800', 'ok \ud83d\ude00'] });
    expect(r.output).toEqual({ a: '\ufffdx', 'k\ufffd': ['\ufffd', 'ok \ud83d\ude00'] });
    expect(r.notes.length).toBe(1);
    expect(storableOutput({ a: 1 }).notes).toEqual([]);
  });

  it('caps a huge output to a preview', () => {
    const big = 'x'.repeat(TASK_OUTPUT_CAP_BYTES + 10);
    const r = storableOutput({ big });
    expect(r.output).toMatchObject({ outputTruncated: true, originalBytes: TASK_OUTPUT_CAP_BYTES + 20 });
    expect(JSON.stringify(r.output).length).toBeLessThan(70 * 1024);
  });

  it('never throws on unserialisable values', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(typeof storableOutput(cyclic).output).toBe('string');
    expect(storableOutput(10n).output).toBe('10');
    expect(storableOutput(undefined).output).toBeNull();
  });

  it('describes anything thrown as a bounded storable string', () => {
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError('plain')).toBe('plain');
    expect(describeError(null)).toBe('handler threw null');
    expect(describeError(undefined)).toBe('handler threw undefined');
    expect(describeError({ code: 7 })).toBe('handler threw a non-Error: {"code":7}');
    expect(describeError(Symbol('s'))).toMatch(/Symbol\(s\)/);
    const evil = { get message(): string { throw new Error('getter'); } };
    expect(describeError(evil)).toBe('handler threw a value that cannot be described');
    expect(describeError(new Error('a\u0000b'))).toBe('a\ufffdb');
    expect(Buffer.byteLength(describeError(new Error('y'.repeat(100_000))))).toBeLessThanOrEqual(TASK_ERROR_CAP_BYTES);
  });

  it('drops exit codes that do not fit int4', () => {
    expect(storableExitCode(3)).toBe(3);
    expect(storableExitCode(2 ** 40)).toBeUndefined();
    expect(storableExitCode(1.5)).toBeUndefined();
    expect(storableExitCode('1')).toBeUndefined();
  });
});

describe('http / sql / shell read their settings through lib/handlers/builtin-schemas.ts (errors name the field, no retries)', () => {
  it.each([
    ['http', { url: 123 }, /^http: payload\.url: Invalid input: expected string, received number$/],
    ['http', { url: 'https://x.test', headers: { a: 'x\r\ny' } }, /^http: payload\.headers\.a: must not contain line breaks/],
    ['http', { url: 'https://x.test', method: 'G E T' }, /^http: payload\.method: must be an HTTP method name/],
    ['http', { url: 'https://x.test', expectStatus: 'abc' }, /^http: payload\.expectStatus: must be an HTTP status/],
    ['sql', { sql: '' }, /^sql: payload\.sql: must not be empty/],
    ['sql', {}, /^sql: payload\.sql: is required/],
    ['shell', { command: 'ls' }, /^shell: payload\.command: must be a non-empty array of strings/],
  ])('%s refuses %o', async (name, payload, message) => {
    const err = await h(name)(ctx({ payload })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect((err as HandlerError).message).toMatch(message);
    expect((err as HandlerError).detail).toMatchObject({ code: 'config', retryable: false });
  });
});
