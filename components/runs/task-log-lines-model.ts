/**
 * Pure helpers of the run page's task log line viewer (task-log-lines.tsx): level and text
 * filtering, the download text, and the `#lines-…` link from a task-log state change to
 * the lines written around it (docs/task-logs.md).
 */
import stripAnsi from 'strip-ansi';
import type { TaskLogLineLevel, TaskLogLineView } from '@/lib/task-logs/view';

export const LEVELS: readonly TaskLogLineLevel[] = ['debug', 'info', 'warn', 'error'];
const RANK: Record<TaskLogLineLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/**
 * A line's text as the console shows it: without ANSI terminal escapes (colours, cursor moves) that
 * programs write for a terminal, which a page would show as a stray glyph and `[31m` (strip-ansi).
 * Stored lines keep them: the download has them, for a pager that renders them.
 */
export function lineText(text: string): string {
  return text.includes('\u001b') || text.includes('\u009b') ? stripAnsi(text) : text;
}

/** Lines at `minLevel` or above whose text (or fields JSON) contains `text`, case-insensitive. */
export function filterLines(lines: readonly TaskLogLineView[], minLevel: TaskLogLineLevel, text: string): TaskLogLineView[] {
  const needle = text.trim().toLowerCase();
  const min = RANK[minLevel];
  return lines.filter((l) => {
    if (RANK[l.level] < min) return false;
    if (!needle) return true;
    if (lineText(l.text).toLowerCase().includes(needle)) return true;
    return l.fields !== undefined && JSON.stringify(l.fields).toLowerCase().includes(needle);
  });
}

/** An SGR escape (colours, bold): the only terminal escape a downloaded line keeps. */
const SGR = /\u001b\[[0-9;:]*m/y;
/**
 * Characters a downloaded line shows escaped: C0 and C1 controls and DEL but tab, the line and
 * paragraph separators, and the bidirectional controls (docs/security.md "Names").
 */
const UNSAFE_IN_FILE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * `text` as one line of a downloaded file: colour escapes (SGR) kept for a pager that renders
 * them, and reset at the line's end so that none carries over to the lines after it (a
 * concealed or black-on-black rest of the file); every other control character written as an
 * escape (`\n`, `\r`, `\x1b`, `\u202e`).
 * A line's text comes from the handler, and through it from whoever wrote the step (an `sql`
 * statement is logged as written) or answered it: a newline in it forged whole lines of the
 * file (`… ERROR system   attempt ended: …`), and a cursor move, an erase or an OSC sequence
 * (window title, OSC 52 clipboard write) acted on the terminal of whoever ran `cat` on it.
 */
export function fileLineText(text: string): string {
  if (!UNSAFE_IN_FILE.test(text)) return text;
  let out = '';
  let coloured = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\u001b') {
      SGR.lastIndex = i;
      const sgr = SGR.exec(text);
      if (sgr) {
        out += sgr[0];
        coloured = true;
        i += sgr[0].length - 1;
        continue;
      }
    }
    out += UNSAFE_IN_FILE.test(ch) ? escapedControl(ch) : ch;
  }
  return coloured ? `${out}\u001b[0m` : out;
}

/** One control character as the escape a line shows in its place (`\n`, `\r`, `\x1b`, `\u202e`). */
function escapedControl(ch: string): string {
  const code = ch.charCodeAt(0);
  return ch === '\n' ? '\\n' : ch === '\r' ? '\\r' : code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`;
}

/** What a page shows escaped: what a file does (UNSAFE_IN_FILE) but the newline. */
const UNSAFE_ON_PAGE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * A stored line as the console's line views show it (the run page's Log lines, the Logs search):
 * lineText's text, with control characters escaped as fileLineText writes them, so that a
 * right-to-left override (U+202E) or an isolate cannot turn the rest of the row around and a
 * carriage return or form feed shows as what it is. A newline stays a line break: a handler
 * that logs a stack trace as one line is read as one, and its rows sit under the line's text
 * column, without a time or a level of their own.
 */
export function shownLineText(text: string): string {
  return lineText(text).replace(UNSAFE_ON_PAGE, escapedControl);
}

/** One line as plain text: `time level stream text {fields}` (time ISO UTC), on one line of the file (fileLineText). */
export function lineAsText(l: TaskLogLineView): string {
  return `${l.time} ${l.level.toUpperCase().padEnd(5)} ${l.stream.padEnd(8)} ${fileLineText(l.text)}${l.fields !== undefined ? ` ${fileLineText(JSON.stringify(l.fields))}` : ''}`;
}

/** The download file's text: one line each, newline-terminated. */
export function linesAsText(lines: readonly TaskLogLineView[]): string {
  return lines.map((l) => `${lineAsText(l)}\n`).join('');
}

/**
 * The anchor of the lines of `taskId`'s `attempt` around instant `at` (ms since epoch), or of the
 * line `seq` itself when given (a log search hit: a fast program writes hundreds of lines in one
 * millisecond, so the instant alone names the first of them).
 */
export function linesAnchor(taskId: string, attempt: number, at: number, seq?: number): string {
  return `lines-${taskId}-${attempt}-${at}${seq === undefined ? '' : `-${seq}`}`;
}

/** Parses an anchor made by linesAnchor (with or without the leading `#`); null when it is not one. */
export function parseLinesAnchor(hash: string): { taskId: string; attempt: number; at: number; seq?: number } | null {
  const m = /^#?lines-([0-9a-f-]{36})-(\d+)-(\d+)(?:-(\d+))?$/i.exec(hash);
  if (!m) return null;
  return { taskId: m[1]!.toLowerCase(), attempt: Number(m[2]), at: Number(m[3]), ...(m[4] !== undefined ? { seq: Number(m[4]) } : {}) };
}

/**
 * Index in `shown` (the lines the filters let through) of the line an anchor names: the line
 * `seq` when it is there; else the line at `at` (lineIndexAt), also for an anchor without a seq.
 * `null` while the line `seq` may still arrive: the lines read so far (`lines`) end before it and
 * `more` says the tail has not read the attempt to its end. -1 for no lines.
 */
export function anchoredLineIndex(lines: readonly TaskLogLineView[], shown: readonly TaskLogLineView[], at: number, seq: number | undefined, more: boolean): number | null {
  if (seq !== undefined) {
    const i = shown.findIndex((l) => l.seq === seq);
    if (i >= 0) return i;
    if (more && (lines.at(-1)?.seq ?? -1) < seq) return null;
  }
  return lineIndexAt(shown, at);
}

/**
 * Index of the line to show for a state change at `at` (ms): the first line written at or
 * after it; when none is, the last line (a state change that ended the attempt follows its
 * lines). -1 for no lines.
 */
export function lineIndexAt(lines: readonly TaskLogLineView[], at: number): number {
  if (lines.length === 0) return -1;
  const i = lines.findIndex((l) => new Date(l.time).getTime() >= at);
  return i === -1 ? lines.length - 1 : i;
}
