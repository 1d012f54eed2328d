/**
 * The largest REST request body (app/_lib/rest.ts readBodyText) and the one sentence that says what
 * happened to a larger one, in the 413 answer and in the OpenAPI document alike (lib/api/openapi.ts).
 */

/** Largest request body accepted (bytes); a larger one is a 413 `payload_too_large` before any parsing. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The 413's message. The body is refused by its Content-Length when it declares one, else while it
 * streams: read up to the limit, never past it, and never parsed; nothing is changed either way.
 */
export const BODY_TOO_LARGE_MESSAGE =
  `Request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB (${MAX_BODY_BYTES} bytes): ` +
  'it was read no further than that, not parsed, and nothing was changed';
