import { describe, expect, it } from 'vitest';
import { LineSplitter } from './shell';

function split(chunks: Buffer[], maxLineBytes?: number): string[] {
  const out: string[] = [];
  const s = new LineSplitter((l) => out.push(l), maxLineBytes);
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

/** `buf` written in pieces of `size` bytes, as a program writing in small blocks does. */
const inPieces = (buf: Buffer, size: number) => Array.from({ length: Math.ceil(buf.length / size) }, (_, i) => buf.subarray(i * size, (i + 1) * size));

describe('shell output -> task log lines', () => {
  it('one line per newline, CRLF endings dropped, an unterminated last line kept', () => {
    expect(split([Buffer.from('a\r\nb\n\nc')])).toEqual(['a', 'b', '', 'c']);
  });

  it('joins lines and characters cut across chunks', () => {
    const euro = Buffer.from('pay 5€ now\n', 'utf8');
    const at = euro.indexOf(0xe2) + 1; // inside the 3-byte €
    expect(split([euro.subarray(0, at), euro.subarray(at)])).toEqual(['pay 5€ now']);
  });

  it('splits a line longer than the task log keeps of one line into lines it keeps whole, however the program wrote it', () => {
    // the reported case: 40,000 characters in one write, and the same in 1,000-byte writes
    const line = Buffer.from(`${'x'.repeat(40_000)}\n`);
    const once = split([line]);
    expect(once.map((l) => l.length)).toEqual([8192, 8192, 8192, 8192, 7232]);
    expect(split(inPieces(line, 1000))).toEqual(once);
    expect(once.join('')).toBe('x'.repeat(40_000));
    // multi-byte characters are never cut, and each piece fits in its bytes
    const wide = Buffer.from(`${'€'.repeat(5000)}\n`);
    const pieces = split(inPieces(wide, 333), 4096);
    expect(pieces.join('')).toBe('€'.repeat(5000));
    expect(pieces.every((p) => Buffer.byteLength(p) <= 4096)).toBe(true);
    expect(pieces.map((p) => p.length)).toEqual([1365, 1365, 1365, 905]);
    // an unterminated long last line too
    expect(split([Buffer.from('y'.repeat(9000))]).map((l) => l.length)).toEqual([8192, 808]);
  });
});
