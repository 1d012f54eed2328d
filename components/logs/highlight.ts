/**
 * The parts of a log line's text around the matches of a search text, for the console's log search
 * (app/(console)/logs/page.tsx) to mark what was found. Case-insensitive, as the search is
 * (lib/task-logs/search-lines.ts, ILIKE); the text is returned in pieces, never as markup, so React
 * escapes every piece.
 */
export type TextPart = { text: string; match: boolean };

/**
 * Splits `text` into the runs that match `needle` (compared lower-cased, trimmed) and the runs between
 * them, in order; the parts joined give `text` back. No needle, or lower-casing that changes a
 * character's length (a few Unicode letters, where the offsets would not map back), gives one part.
 */
export function highlightParts(text: string, needle: string): TextPart[] {
  const n = needle.trim().toLowerCase();
  const lower = text.toLowerCase();
  if (!n || lower.length !== text.length) return [{ text, match: false }];
  const parts: TextPart[] = [];
  let from = 0;
  for (let at = lower.indexOf(n); at !== -1; at = lower.indexOf(n, at + n.length)) {
    if (at > from) parts.push({ text: text.slice(from, at), match: false });
    parts.push({ text: text.slice(at, at + n.length), match: true });
    from = at + n.length;
  }
  if (from < text.length || parts.length === 0) parts.push({ text: text.slice(from), match: false });
  return parts;
}
