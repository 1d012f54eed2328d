import { describe, expect, it } from 'vitest';
import { describeError, storableOutput, TASK_OUTPUT_PREVIEW_BYTES } from './output.ts';

describe('a task error as stored (worker/output.ts describeError)', () => {
  it('keeps the text a person reads: no terminal colour codes, no NUL', () => {
    expect(describeError(new Error('\u001b[35mMAGENTA\u001b[0m failure'))).toBe('MAGENTA failure');
    expect(describeError(new Error('exit 1: \u001b[1;31merror:\u001b[0m no such file'))).toBe('exit 1: error: no such file');
    expect(describeError(new Error('a\u0000b'))).toBe('a\uFFFDb');
  });

  it('reads the causes after the message, and says when a long message was cut', () => {
    const inner = new Error('connect ECONNREFUSED 10.0.0.5:5432');
    expect(describeError(new Error('could not load orders', { cause: new Error('pool exhausted', { cause: inner }) }))).toBe(
      'could not load orders: caused by: pool exhausted: caused by: connect ECONNREFUSED 10.0.0.5:5432',
    );
    const self = new Error('loops');
    (self as { cause?: unknown }).cause = self;
    expect(describeError(self)).toBe('loops');
    const long = describeError(new Error('x'.repeat(100_000)));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(8 * 1024);
    expect(long).toMatch(/… \[cut: the whole message is longer than 8 KiB\]$/);
    expect(describeError(new Error('short'))).toBe('short');
  });

  it('names an Error thrown without a message by its class, and reads the errors of an AggregateError', () => {
    expect(describeError(new Error())).toBe('Error (no message)');
    expect(describeError(new TypeError())).toBe('TypeError (no message)');
    expect(describeError(new Error('', { cause: new RangeError('bad index') }))).toBe('Error (no message): caused by: bad index');
    // what Promise.any rejects with: the message alone says nothing of why each promise failed
    expect(describeError(new AggregateError([new Error('primary down'), 'replica timed out'], 'All promises were rejected'))).toBe(
      'All promises were rejected (2 errors: primary down; replica timed out)',
    );
    expect(describeError(new AggregateError([]))).toBe('AggregateError (no message)');
    const many = describeError(new AggregateError(Array.from({ length: 8 }, (_, i) => new Error(`e${i}`))));
    expect(many).toBe('AggregateError (no message) (8 errors: e0; e1; e2; e3; e4; … 3 more)');
    // a nested AggregateError is named by its own message (or class) only: the text stays bounded
    const nested = new AggregateError([new AggregateError([new Error('deep')], 'replicas down'), new AggregateError([new Error('deeper')])], 'all down');
    expect(describeError(nested)).toBe('all down (2 errors: replicas down; AggregateError (no message))');
    // other thrown values are still described as values
    expect(describeError({ code: 42 })).toBe('handler threw a non-Error: {"code":42}');
  });
});

describe('an output as stored (worker/output.ts storableOutput)', () => {
  it('an output over the cap costs about one JSON.stringify, not a parse and a walk of the whole value', () => {
    // the worker's event loop (its heartbeat included) waits while this runs
    const big = Array.from({ length: 300_000 }, (_, i) => ({ i, s: 'abc', n: [i] }));
    const time = (f: () => unknown) => {
      let best = Infinity;
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        f();
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    const plain = time(() => JSON.stringify(big));
    const stored = time(() => storableOutput(big));
    expect(stored / plain).toBeLessThan(4); // about 1; a round trip and a walk made it about 10
    const out = storableOutput(big).output as { outputTruncated: boolean; originalBytes: number; preview: string };
    expect(out.outputTruncated).toBe(true);
    expect(out.originalBytes).toBe(Buffer.byteLength(JSON.stringify(big)));
    expect(Buffer.byteLength(out.preview)).toBeLessThanOrEqual(TASK_OUTPUT_PREVIEW_BYTES);
  });

  it('under the cap: bigint as text, U+0000 and lone surrogates replaced, undefined as null', () => {
    expect(storableOutput({ a: 1n, b: 'x\u0000y', c: '\ud800' }).output).toEqual({ a: '1', b: 'x\uFFFDy', c: '\uFFFD' });
    expect(storableOutput(undefined).output).toBeNull();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(storableOutput(cyclic).unserialisable).toMatch(/circular/i);
  });
});
