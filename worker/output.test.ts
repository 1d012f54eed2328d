import { describe, expect, it } from 'vitest';
import { describeError } from './output.ts';

describe('a task error as stored (worker/output.ts describeError)', () => {
  it('keeps the text a person reads: no terminal colour codes, no NUL', () => {
    expect(describeError(new Error('\u001b[35mMAGENTA\u001b[0m failure'))).toBe('MAGENTA failure');
    expect(describeError(new Error('exit 1: \u001b[1;31merror:\u001b[0m no such file'))).toBe('exit 1: error: no such file');
    expect(describeError(new Error('a\u0000b'))).toBe('a\uFFFDb');
  });
});
