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
