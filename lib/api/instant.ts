/**
 * The instants Tickflow accepts from clients (REST, console, cursors): from
 * 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z. JavaScript dates reach
 * year 275760 and year 0, but PostgreSQL refuses year 0 ("0000-01-01" is out
 * of range for timestamptz input) and a year beyond 9999 cannot be written as
 * ISO-8601 without a sign; nothing scheduled lies before the epoch.
 */
export const MIN_INSTANT_MS = Date.UTC(1970, 0, 1);
export const MAX_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const INSTANT_RANGE_MESSAGE = 'Must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z';

/** True for a valid Date inside [MIN_INSTANT_MS, MAX_INSTANT_MS]. */
export function isAcceptedInstant(d: unknown): d is Date {
  return d instanceof Date && !Number.isNaN(d.getTime()) && d.getTime() >= MIN_INSTANT_MS && d.getTime() <= MAX_INSTANT_MS;
}
