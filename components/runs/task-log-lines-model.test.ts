import { describe, expect, it } from 'vitest';
import type { TaskLogLineView } from '@/lib/task-logs/view';
import { anchoredLineIndex, fileLineText, filterLines, lineIndexAt, lineText, linesAnchor, linesAsText, parseLinesAnchor, shownLineText } from './task-log-lines-model';

const line = (seq: number, level: TaskLogLineView['level'], text: string, extra: Partial<TaskLogLineView> = {}): TaskLogLineView => ({
  seq,
  time: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  level,
  stream: 'log',
  text,
  ...extra,
});

const LINES = [line(1, 'debug', 'connecting'), line(2, 'info', 'Fetched 10 rows'), line(3, 'warn', 'slow query', { fields: { table: 'Orders' } }), line(4, 'error', 'boom')];

describe('filterLines', () => {
  it('keeps lines at the level or above', () => {
    expect(filterLines(LINES, 'debug', '').map((l) => l.seq)).toEqual([1, 2, 3, 4]);
    expect(filterLines(LINES, 'warn', '').map((l) => l.seq)).toEqual([3, 4]);
    expect(filterLines(LINES, 'error', '').map((l) => l.seq)).toEqual([4]);
  });
  it('matches text and fields case-insensitively, combined with the level', () => {
    expect(filterLines(LINES, 'debug', 'FETCHED').map((l) => l.seq)).toEqual([2]);
    expect(filterLines(LINES, 'debug', 'orders').map((l) => l.seq)).toEqual([3]);
    expect(filterLines(LINES, 'error', 'fetched')).toEqual([]);
  });
});

describe('linesAsText', () => {
  it('writes one line per stored line with time, level, stream, text and fields', () => {
    expect(linesAsText(LINES.slice(2, 4))).toBe(
      '2026-01-01T00:00:03.000Z WARN  log      slow query {"table":"Orders"}\n2026-01-01T00:00:04.000Z ERROR log      boom\n',
    );
  });
});

describe('a downloaded line stays one line and cannot drive a terminal', () => {
  const line = (text: string, fields?: unknown) => ({ seq: 1, time: '2026-01-01T00:00:01.000Z', level: 'info' as const, stream: 'log' as const, text, ...(fields !== undefined ? { fields } : {}) });
  it('writes a newline, a carriage return and every other control as an escape', () => {
    // an operator's sql step logs its statement as written: a second line of it read as a line of its own
    const forged = 'SELECT 1 -- ok\n2026-01-01T00:00:02.000Z ERROR system   attempt ended: timeout\r';
    const file = linesAsText([line(forged)]);
    expect(file.split('\n')).toHaveLength(2);
    expect(file).toBe('2026-01-01T00:00:01.000Z INFO  log      SELECT 1 -- ok\\n2026-01-01T00:00:02.000Z ERROR system   attempt ended: timeout\\r\n');
    // cursor up, erase line, OSC 52 (clipboard write), window title, 8-bit CSI, bidi override, line separator
    const hostile = '\u001b[1A\u001b[2K\u001b]52;c;ZWNobw==\u0007\u001b]0;t\u0007\u009b2J\u202egnp.exe\u2028x\u0000';
    expect(fileLineText(hostile)).toBe('\\x1b[1A\\x1b[2K\\x1b]52;c;ZWNobw==\\x07\\x1b]0;t\\x07\\x9b2J\\u202egnp.exe\\u2028x\\x00');
    expect(linesAsText([line('a', { note: 'b\u202ec' })])).toBe('2026-01-01T00:00:01.000Z INFO  log      a {"note":"b\\u202ec"}\n');
  });
  it('keeps colours, reset at the end of the line, and plain text as it is', () => {
    expect(fileLineText('\u001b[1;31mERROR\u001b[0m: disk\tfull')).toBe('\u001b[1;31mERROR\u001b[0m: disk\tfull\u001b[0m');
    expect(fileLineText('\u001b[8mhidden')).toBe('\u001b[8mhidden\u001b[0m');
    expect(fileLineText('C:\\temp\\n is a path, café ✓')).toBe('C:\\temp\\n is a path, café ✓');
  });
});

describe('anchors', () => {
  it('round-trip, and refuse anything else', () => {
    const id = '5b4c3f6e-0000-4000-8000-000000000000';
    expect(parseLinesAnchor(`#${linesAnchor(id, 2, 1767225600000)}`)).toEqual({ taskId: id, attempt: 2, at: 1767225600000 });
    expect(parseLinesAnchor('#task-main')).toBeNull();
    expect(parseLinesAnchor('#lines-x-1-2')).toBeNull();
  });
  it('point at the first line at or after the instant, else the last line', () => {
    expect(lineIndexAt(LINES, Date.UTC(2026, 0, 1, 0, 0, 2, 500))).toBe(2);
    expect(lineIndexAt(LINES, Date.UTC(2026, 0, 1))).toBe(0);
    expect(lineIndexAt(LINES, Date.UTC(2027, 0, 1))).toBe(3);
    expect(lineIndexAt([], 0)).toBe(-1);
  });
  it('a search hit names its line by seq: the line itself, not the first of its millisecond', () => {
    const id = '5b4c3f6e-0000-4000-8000-000000000000';
    const at = Date.UTC(2026, 0, 1, 0, 0, 1);
    expect(parseLinesAnchor(`#${linesAnchor(id, 1, at, 2998)}`)).toEqual({ taskId: id, attempt: 1, at, seq: 2998 });
    // three lines written in one millisecond
    const burst = [line(1, 'info', 'a'), line(2, 'info', 'b', { time: LINES[0]!.time }), line(3, 'info', 'c', { time: LINES[0]!.time })];
    const t0 = new Date(LINES[0]!.time).getTime();
    expect(lineIndexAt(burst, t0)).toBe(0);
    expect(anchoredLineIndex(burst, burst, t0, 3, false)).toBe(2);
    // filtered out, or gone: the instant decides; not read yet while the tail goes on: wait
    expect(anchoredLineIndex(burst, burst.slice(0, 2), t0, 3, false)).toBe(0);
    expect(anchoredLineIndex(burst, burst, t0, 9, true)).toBeNull();
    expect(anchoredLineIndex(burst, burst, t0, 9, false)).toBe(0);
    expect(anchoredLineIndex(burst, burst, t0, undefined, true)).toBe(0);
  });
});

describe('lineText', () => {
  it('shows a line without the terminal escapes a program wrote for a terminal; the filter reads what is shown', () => {
    const red = '\u001b[31mFAILED\u001b[0m: 3 tests \u001b[1;32mok\u001b]8;;http://x\u0007link\u001b]8;;\u0007';
    expect(lineText(red)).toBe('FAILED: 3 tests oklink');
    expect(lineText('plain [31m text')).toBe('plain [31m text');
    expect(filterLines([line(1, 'info', red)], 'debug', 'failed: 3')).toHaveLength(1);
  });
});

describe('shownLineText (the console\'s line views)', () => {
  it('escapes a bidirectional override, an isolate, a carriage return and other controls, as the download does', () => {
    expect(shownLineText('paid \u202eDSU 001\u202c to x')).toBe('paid \\u202eDSU 001\\u202c to x');
    expect(shownLineText('a\u2067b\u2069')).toBe('a\\u2067b\\u2069');
    expect(shownLineText('50%\r100%')).toBe('50%\\r100%');
    expect(shownLineText('bell\u0007 nul\u0000 del\u007f sep\u2028')).toBe('bell\\x07 nul\\x00 del\\x7f sep\\u2028');
  });
  it('keeps a newline (a stack trace logged as one line reads as one) and a tab, and strips colours as lineText does', () => {
    expect(shownLineText('Error: boom\n    at f (x.js:1:1)\tz')).toBe('Error: boom\n    at f (x.js:1:1)\tz');
    expect(shownLineText('\u001b[31mred\u001b[0m')).toBe('red');
    expect(shownLineText('plain')).toBe('plain');
  });
});
