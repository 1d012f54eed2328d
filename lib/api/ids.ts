/** True for a canonical UUID string (any version). Check before querying a uuid column: a malformed id is a 404, never a 500. */
export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v);
}

/**
 * The one spelling of an id: a UUID in lower case, as PostgreSQL prints a `uuid` and as every
 * column that keeps an id as text stores it (runs.job_id, alarms.job_id, alarm_silences.job_id,
 * task_log_lines.job_id: docs/design.md). A UUID is case-insensitive (RFC 9562 §4), so an id a
 * client sends in upper case names the same object and must find the same rows there. Anything
 * that is not a UUID is returned as it is (a worker's node id, or a malformed id that answers 404).
 */
export function canonicalId(v: string): string {
  return isUuid(v) ? v.toLowerCase() : v;
}
