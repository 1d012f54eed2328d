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

/** One line as plain text: `time level stream text {fields}` (time ISO UTC). */
export function lineAsText(l: TaskLogLineView): string {
  return `${l.time} ${l.level.toUpperCase().padEnd(5)} ${l.stream.padEnd(8)} ${l.text}${l.fields !== undefined ? ` ${JSON.stringify(l.fields)}` : ''}`;
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
