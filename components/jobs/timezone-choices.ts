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

/**
 * Where a typed time zone stands: `empty` (the form falls back to UTC), `valid` (a zone the server accepts,
 * lib/schedule isValidTimeZone, so a preview may ask for it), `partial` (the start or a part of listed zones,
 * e.g. "Europe/Ber" while typing; `suggestions` are the first few) or `unknown` (no listed zone contains it).
 */
export type ZoneInput =
  | { kind: 'empty' }
  | { kind: 'valid' }
  | { kind: 'partial'; suggestions: string[] }
  | { kind: 'unknown' };

/** Classifies the typed `value` against the picker's `zones` and the server's rule `isValid` (see {@link ZoneInput}). */
export function zoneInput(value: string, zones: readonly string[], isValid: (tz: string) => boolean): ZoneInput {
  const text = value.trim();
  if (!text) return { kind: 'empty' };
  if (isValid(text)) return { kind: 'valid' };
  const { matches } = zoneChoices(text, zones, 3);
  return matches.length ? { kind: 'partial', suggestions: matches } : { kind: 'unknown' };
}

/**
 * The calm note under the Time zone field while the typed text is not a zone yet (null when it is one, or
 * empty): it names the field and says what to do, since the fire preview waits for a complete zone.
 */
export function zoneInputHint(value: string, input: ZoneInput): string | null {
  const text = value.trim();
  if (input.kind === 'partial') {
    return `Time zone: "${text}" is not a complete zone name yet; pick one from the list (${input.suggestions.join(', ')}${input.suggestions.length === 3 ? ', …' : ''}). The preview waits for a complete zone.`;
  }
  if (input.kind === 'unknown') return `Time zone: no IANA zone matches "${text}"; pick one from the list, e.g. Europe/Berlin or UTC. The preview waits for a complete zone.`;
  return null;
}
