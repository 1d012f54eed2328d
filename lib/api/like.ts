/**
 * `text` with the LIKE / ILIKE wildcards `%` and `_` and the escape character `\` escaped, so a
 * pattern built from it matches the text literally (PostgreSQL docs, "Pattern Matching": `\` is
 * the default escape). Prisma's `contains` / `startsWith` wrap a value in `%` without escaping it,
 * so every search a user types goes through here: `%` must find a `%`, not every row.
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `text` as an ILIKE pattern matching it anywhere, literally. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/**
 * Whether `q` gives the trigram index something to look up, by pg_trgm's rule for a LIKE pattern
 * (the search's `%q%`): a word is a run of letters or digits; one inside the text is padded with
 * two spaces before it and one after, one touching the pattern's leading `%` gets no space before,
 * one touching the trailing `%` none after, and a trigram needs three characters. Without one
 * (`~~~`, `a..`, `...`) PostgreSQL reads every row: a search any viewer may send (task log lines,
 * lib/task-logs/search-lines.ts; runs by error text, lib/runs/list-runs.ts) would scan the whole
 * table, many at once holding the console's database connections.
 */
export function searchTextHasTrigram(q: string): boolean {
  for (const m of q.matchAll(/[\p{L}\p{N}]+/gu)) {
    const start = m.index;
    const end = start + m[0].length;
    const chars = [...m[0]].length + (start > 0 ? 2 : 0) + (end < q.length ? 1 : 0);
    if (chars >= 3) return true;
  }
  return false;
}

/** The field message for a search text without a trigram (searchTextHasTrigram). */
export const NO_TRIGRAM_MESSAGE = 'Search text must hold a word the index can look up: 3 letters or digits in a row, or a shorter word after other characters (punctuation alone would read every row)';
