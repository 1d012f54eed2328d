/**
 * Opaque keyset cursors: base64url(JSON). A cursor names the sort it belongs
 * to; one from another sort is a 400 at `cursor`.
 */
import { DomainError } from '../errors.ts';
import { isUuid } from './ids.ts';
import { isAcceptedInstant } from './instant.ts';
import { decodeUtf8, scanJson } from './json-guard.ts';

export type CursorData = { s: string; v: string | number | null; id: string };

export function encodeCursor(data: CursorData): string {
  return Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
}

/** Decodes a cursor for `sort`; throws DomainError('validation', ..., { cursor }) when malformed or for another sort. */
export function decodeCursor(cursor: string, sort: string): CursorData {
  try {
    // bytes that are not UTF-8 are a forged cursor (null: JSON.parse throws), not text with U+FFFD in them
    const d = JSON.parse(decodeUtf8(Buffer.from(cursor, 'base64url')) ?? '') as CursorData;
    // a forged value PostgreSQL would refuse (a NUL, a lone surrogate) is this cursor's fault, not the server's
    if (d && typeof d === 'object' && d.s === sort && isUuid(d.id) && (d.v === null || ['string', 'number'].includes(typeof d.v)) && scanJson(d.v).problems.length === 0) {
      return d;
    }
  } catch {
    /* fall through */
  }
  return invalidCursor();
}

/** Throws the one answer to any cursor that cannot be used: DomainError('validation', …, { cursor }), a 400 at `cursor`. */
export function invalidCursor(): never {
  throw new DomainError('validation', 'Invalid cursor', { cursor: 'Invalid or stale cursor for this sort; start from the first page' });
}

/** The instant a cursor's `v` holds, or DomainError('validation', …, { cursor }) when it is not an accepted instant (lib/api/instant.ts). */
export function cursorInstant(c: CursorData): Date {
  const d = new Date(String(c.v));
  if (c.v === null || !isAcceptedInstant(d)) invalidCursor();
  return d;
}

/** The whole number a cursor's `v` holds (a version number), or DomainError('validation', …, { cursor }) when it is not one in 1..int4 max. */
export function cursorPositiveInt(c: CursorData): number {
  if (typeof c.v !== 'number' || !Number.isInteger(c.v) || c.v < 1 || c.v > 2_147_483_647) invalidCursor();
  return c.v as number;
}

/**
 * Keyset on (created_at desc, id desc), the order of the alarms, silences and job audit lists: the
 * where-clause of the rows after `cursor` (the `nextCursor` of the previous page for `sort`), or an
 * empty clause without a cursor. Rows sharing an instant are told apart by their id, so a page
 * boundary among them neither repeats nor skips a row.
 * @throws DomainError('validation', …, { cursor }) for a malformed cursor or one of another sort
 */
export function afterCreatedAt(cursor: string | undefined, sort: string): { OR?: Record<string, unknown>[] } {
  if (!cursor) return {};
  const c = decodeCursor(cursor, sort);
  const v = cursorInstant(c);
  return { OR: [{ createdAt: { lt: v } }, { createdAt: v, id: { lt: c.id } }] };
}

/**
 * One page from rows read with `take: limit + 1` in (created_at desc, id desc) order: the first
 * `limit` rows, and the cursor after the last of them when the extra row shows there are more (else null).
 */
export function createdAtPage<R extends { createdAt: Date; id: string }>(rows: R[], limit: number, sort: string): Page<R> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor({ s: sort, v: last.createdAt.toISOString(), id: last.id }) : null };
}

/** A page of a keyset-paged list: `nextCursor` is the `cursor` of the next (older) page, null at the end. */
export type Page<T> = { items: T[]; nextCursor: string | null };
