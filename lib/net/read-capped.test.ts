import { describe, expect, it } from 'vitest';
import { capUtf8, utf8Prefix } from './read-capped.ts';

describe('cutting UTF-8 text at a byte cap (lib/net/read-capped.ts)', () => {
  it('never cuts inside a character (a cut one reads as U+FFFD)', () => {
    expect(capUtf8('aé', 2)).toEqual({ text: 'a', truncated: true });
    expect(capUtf8('aé', 3)).toEqual({ text: 'aé', truncated: false });
    expect(capUtf8('€€', 4)).toEqual({ text: '€', truncated: true });
    expect(capUtf8('😀x', 3)).toEqual({ text: '', truncated: true });
  });

  it('a buffer that ends inside a character (a capped stream) loses that character only', () => {
    const bytes = Buffer.from('ééé', 'utf8');
    expect(utf8Prefix(bytes.subarray(0, 5), 5)).toBe('éé');
    expect(utf8Prefix(bytes, bytes.length)).toBe('ééé');
    expect(utf8Prefix(Buffer.from('abc'), 2)).toBe('ab');
    expect(utf8Prefix(Buffer.alloc(0), 0)).toBe('');
  });
});
