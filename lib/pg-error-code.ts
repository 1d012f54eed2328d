/** The SQLSTATE of a PostgreSQL error as surfaced by Prisma's pg adapter (P2010 -> meta.driverAdapterError.cause). */
export function pgErrorCode(error: unknown): string | undefined {
  const e = error as { code?: string; meta?: { driverAdapterError?: { cause?: { originalCode?: string; code?: string } } }; cause?: unknown };
  const cause = e?.meta?.driverAdapterError?.cause;
  if (cause?.originalCode) return cause.originalCode;
  if (cause?.code && /^[0-9A-Z]{5}$/.test(cause.code)) return cause.code;
  if (typeof e?.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e.code;
  return undefined;
}
