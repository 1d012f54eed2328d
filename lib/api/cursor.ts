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
  throw new DomainError('validation', 'Invalid cursor', { cursor: 'Invalid or stale cursor for this sort; start from the first page' });
}

/** The instant a cursor's `v` holds, or DomainError('validation', …, { cursor }) when it is not an accepted instant (lib/api/instant.ts). */
export function cursorInstant(c: CursorData): Date {
  const d = new Date(String(c.v));
  if (c.v === null || !isAcceptedInstant(d)) decodeCursor('', '');
  return d;
}

export type Page<T> = { items: T[]; nextCursor: string | null };
