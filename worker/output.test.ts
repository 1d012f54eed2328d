import { describe, expect, it } from 'vitest';
import { describeError } from './output.ts';

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
});
