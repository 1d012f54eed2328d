import { describe, expect, it } from 'vitest';
import { LineSplitter, SHELL_LOG_LINE_CHARS } from './shell';

function split(chunks: Buffer[]): string[] {
  const out: string[] = [];
  const s = new LineSplitter((l) => out.push(l));
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

describe('shell output -> task log lines', () => {
  it('one line per newline, CRLF endings dropped, an unterminated last line kept', () => {
    expect(split([Buffer.from('a\r\nb\n\nc')])).toEqual(['a', 'b', '', 'c']);
  });

  it('joins lines and characters cut across chunks', () => {
    const euro = Buffer.from('pay 5€ now\n', 'utf8');
    const at = euro.indexOf(0xe2) + 1; // inside the 3-byte €
    expect(split([euro.subarray(0, at), euro.subarray(at)])).toEqual(['pay 5€ now']);
  });

  it('splits a line longer than SHELL_LOG_LINE_CHARS', () => {
    const out = split([Buffer.from('x'.repeat(SHELL_LOG_LINE_CHARS * 2 + 5))]);
    expect(out.map((l) => l.length)).toEqual([SHELL_LOG_LINE_CHARS, SHELL_LOG_LINE_CHARS, 5]);
  });
});
