import { describe, expect, it } from 'vitest';
import { highlightParts } from './highlight';

describe('highlightParts', () => {
  it('marks every case-insensitive match and keeps the text whole', () => {
    const parts = highlightParts('Order 7 failed; ORDER 8 ok', ' order ');
    expect(parts).toEqual([
      { text: 'Order', match: true },
      { text: ' 7 failed; ', match: false },
      { text: 'ORDER', match: true },
      { text: ' 8 ok', match: false },
    ]);
    expect(parts.map((p) => p.text).join('')).toBe('Order 7 failed; ORDER 8 ok');
  });

  it('treats the needle as text, not a pattern', () => {
    expect(highlightParts('100% done, 100x not', '100%')).toEqual([
      { text: '100%', match: true },
      { text: ' done, 100x not', match: false },
    ]);
  });

  it('gives one unmarked part without a needle, without a match, or when lower-casing changes lengths', () => {
    expect(highlightParts('abc', '')).toEqual([{ text: 'abc', match: false }]);
    expect(highlightParts('abc', 'xyz')).toEqual([{ text: 'abc', match: false }]);
    // U+0130 lower-cases to two code units: offsets would not map back
    expect(highlightParts('\u0130stanbul order', 'order')).toEqual([{ text: '\u0130stanbul order', match: false }]);
  });

  it('does not overlap matches', () => {
    expect(highlightParts('aaaa', 'aa').filter((p) => p.match)).toHaveLength(2);
  });
});
