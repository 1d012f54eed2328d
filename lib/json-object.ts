/**
 * JSON objects read from untyped values (payloads, configuration, routing kept as jsonb): the one
 * test of "a plain object", so that an array or a scalar where an object belongs reads as empty
 * everywhere alike, never as an object with index keys.
 */

/** True when `v` is an object that is neither null nor an array. */
export function isJsonObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** `v` when it is an object that is neither null nor an array (isJsonObject), else a new empty object. */
export function objectOrEmpty(v: unknown): Record<string, unknown> {
  return isJsonObject(v) ? v : {};
}
