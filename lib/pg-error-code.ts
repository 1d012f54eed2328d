/** The SQLSTATE of a PostgreSQL error as surfaced by Prisma's pg adapter (P2010 -> meta.driverAdapterError.cause). */
export function pgErrorCode(error: unknown): string | undefined {
  const e = error as { code?: string; meta?: { driverAdapterError?: { cause?: { originalCode?: string; code?: string } } }; cause?: unknown };
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause?.originalCode) return cause.originalCode;
  if (cause?.code && /^[0-9A-Z]{5}$/.test(cause.code)) return cause.code;
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}

/**
 * True when a failed statement may nonetheless have committed, so the caller cannot know its
 * outcome: no SQLSTATE (a client-side query timeout, a connection lost or reset: the server may
 * have finished the statement after the client stopped waiting), or a SQLSTATE that ends the
 * session rather than the statement (class 08 connection exception, 57P0x shutdown or
 * termination, XX internal error), which may come after the commit. Any other SQLSTATE (57014
 * the server's statement_timeout, 40001, 23505, …) means the server rolled the statement back.
 * Used by the worker to reconcile what it holds (docs/engine.md "Lost answers").
 */
export function outcomeMayBeUnknown(error: unknown): boolean {
  const code = pgErrorCode(error);
  return code === undefined || /^(08|57P|XX)/.test(code);
}
