/**
 * SQL of the timestamptz `expr` as text in ISO-8601 UTC with milliseconds (`2026-12-05T01:05:24.645Z`), the form
 * of every instant the API gives (Date.prototype.toISOString). Without it, a timestamptz joined to text
 * (`'since ' || last_heartbeat_at`) reads `2026-12-05 01:05:24.645+00` and one put in jsonb
 * `2026-12-05T01:05:24.645+00:00`, both written in the session's TimeZone. For instants the database writes into
 * messages and JSON (alarm content, task log details).
 */
export function isoUtcSql(expr: string): string {
  return `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
