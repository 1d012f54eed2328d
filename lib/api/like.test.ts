import { describe, expect, it } from 'vitest';
import { containsPattern, escapeLike } from './like.ts';

describe('escapeLike', () => {
  it('takes %, _ and \\ literally', () => {
    expect(escapeLike('100%_done\\x')).toBe('100\\%\\_done\\\\x');
    expect(escapeLike('plain')).toBe('plain');
    expect(containsPattern('%')).toBe('%\\%%');
  });
});
