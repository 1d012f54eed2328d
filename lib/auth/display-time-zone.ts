/**
 * A console user's display time zone: the IANA zone every time on the console is written in (lib/time/format.ts).
 * Stored in users.display_time_zone; null means "the browser's zone" (the console then uses the zone the browser
 * reports). Only the user may change their own.
 */
import type { Db } from '../db.ts';
import { DomainError } from '../errors.ts';
import { isValidTimeZone } from '../schedule/timezone.ts';

/** The user's chosen display zone, or null (the browser's zone; also for an unknown user id). */
export async function getDisplayTimeZone(db: Db, userId: string): Promise<string | null> {
  const rows = await db.$queryRaw<{ zone: string | null }[]>`SELECT display_time_zone AS zone FROM users WHERE id = ${userId}::uuid`;
  return rows[0]?.zone ?? null;
}

/**
 * Sets (or with null clears) the user's display zone. `zone` must be an IANA zone name this runtime knows
 * (lib/schedule isValidTimeZone); otherwise DomainError 'validation' naming the field `timeZone`.
 * Throws 'not_found' when the user does not exist.
 */
export async function setDisplayTimeZone(db: Db, userId: string, zone: string | null): Promise<{ timeZone: string | null }> {
  if (zone !== null && (zone.length === 0 || zone.length > 64 || !isValidTimeZone(zone))) {
    throw new DomainError('validation', 'Unknown time zone', { timeZone: `Unknown time zone "${zone.slice(0, 64)}"` });
  }
  const n = await db.$executeRaw`UPDATE users SET display_time_zone = ${zone}, updated_at = now() WHERE id = ${userId}::uuid`;
  if (n === 0) throw new DomainError('not_found', 'User not found');
  return { timeZone: zone };
}
