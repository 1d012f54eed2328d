/**
 * The one error class for expected failures (docs/conventions.md §3): it carries a
 * machine code, a message for people, the HTTP status the REST door answers
 * with, and optional per-field messages for forms. Anything else that is thrown
 * is a bug: logged with pino, shown to the user as a generic error.
 */
export type DomainErrorCode =
  | 'validation'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'idempotency_mismatch'
  | 'idempotency_not_replayable'
  | 'rate_limited'
  | 'unprocessable';

const STATUS: Record<DomainErrorCode, number> = {
  validation: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_mismatch: 422,
  idempotency_not_replayable: 409,
  unprocessable: 422,
  rate_limited: 429,
};

/** Every DomainErrorCode, for the OpenAPI document's Error schema (lib/api/openapi.ts ERROR_CODES). */
export const DOMAIN_ERROR_CODES = Object.keys(STATUS) as DomainErrorCode[];

export class DomainError extends Error {
  readonly status: number;
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** field path (dot-separated, e.g. `schedule.cron` or `steps.1.key`) -> message */
    readonly fields?: Record<string, string>,
    /** extra machine-readable detail, e.g. the current version on a conflict */
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'DomainError';
    this.status = STATUS[code];
  }
}

/** Narrowing helper usable across module copies (Next bundles may duplicate classes). */
export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError || (typeof error === 'object' && error !== null && (error as { name?: string }).name === 'DomainError');
}
