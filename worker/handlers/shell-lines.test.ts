import { describe, expect, it } from 'vitest';
import { LineSplitter } from './shell';
import { cutOutsideSecrets } from '../../lib/secrets/secret-references.ts';

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

describe('shell output pieces and worker secrets', () => {
  const SECRET = 'S3CRET-VALUE-0123456789';
  const cutAt = (text: string, at: number) => cutOutsideSecrets(text, at, [SECRET]);
  function splitSafe(chunks: Buffer[], maxLineBytes: number): string[] {
    const out: string[] = [];
    const s = new LineSplitter((l) => out.push(l), maxLineBytes, cutAt);
    for (const c of chunks) s.push(c);
    s.end();
    return out;
  }

  it('a value across the cut of a long line goes whole into the next piece, in one write or in many', () => {
    for (let before = 40; before < 64; before++) {
      const line = Buffer.from(`${'a'.repeat(before)}${SECRET}${'b'.repeat(100)}\n`);
      for (const pieces of [split([line], 64), splitSafe([line], 64), ...[1, 7, 64].map((size) => splitSafe(inPieces(line, size), 64))]) {
        expect(pieces.join('')).toBe(line.toString().trimEnd());
        expect(pieces.every((p) => Buffer.byteLength(p) <= 64)).toBe(true);
      }
      // without lineCut some cuts fall inside the value; with it, one piece holds it whole
      for (const size of [1, 7, 64, line.length]) expect(splitSafe(inPieces(line, size), 64).filter((p) => p.includes(SECRET))).toHaveLength(1);
    }
    expect(split([Buffer.from(`${'a'.repeat(50)}${SECRET}\n`)], 64).some((p) => p.includes(SECRET))).toBe(false);
  });
});
