/** The zones the time zone picker lists for a text, and the one Enter picks. */
export type ZoneChoices = {
  /** Zones to list, at most `limit`: the exact match first, then the zones containing the text. */
  matches: string[];
  /** Index in `matches` of the zone Enter picks, or -1 for none (nothing typed: Enter picks nothing). */
  active: number;
};

/**
 * The picker's list for the typed `value` (case-insensitive; spaces count as `_`, so "new york" finds
 * America/New_York). A text naming a zone exactly lists and highlights that zone first, so Enter keeps it;
 * an empty text lists the first `limit` zones with none highlighted, so Enter never picks a zone nobody chose.
 */
export function zoneChoices(value: string, zones: readonly string[], limit = 80): ZoneChoices {
  const q = value.trim().toLowerCase().replace(/\s+/g, '_');
  if (!q) return { matches: zones.slice(0, limit), active: -1 };
  const exact = zones.find((z) => z.toLowerCase() === q);
  const others = zones.filter((z) => z !== exact && z.toLowerCase().includes(q));
  const matches = (exact ? [exact, ...others] : others).slice(0, limit);
  return { matches, active: matches.length ? 0 : -1 };
}
