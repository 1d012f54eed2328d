/**
 * The stats time zone: one database setting (`settings` key `stats.timezone`)
 * that cuts handler_stats_daily into days for every process — workers book with
 * it in SQL (tickflow_stats_tz(), migration 20261201200000_stats_timezone_setting),
 * the dashboards, the stats check and `npm run stats:rebuild` read it here.
 * TICKFLOW_STATS_TZ only seeds it once (seedStatsTimeZone); an admin changes it
 * in the console (Settings → Stats day), which rebuilds the table in the same
 * transaction (docs/scheduling.md "Stats day zone").
 */
import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client.ts';
import { inTransaction, type Db } from '../db.ts';
import { requireCan, type Actor } from '../auth/actor.ts';
import { DomainError } from '../errors.ts';
import { parseOrThrow } from '../api/validation.ts';
import { isValidTimeZone, postgresTimeZone } from '../schedule/timezone.ts';
import { addDays, statDateOf } from './dates.ts';
import { rebuildStats, REBUILD_TIMEOUT_MS, type RebuildResult } from './rebuild-stats.ts';
import { getStatsTimeZone } from './current-zone.ts';
import { retentionDays } from '../system-jobs/retention.ts';
import { SEED_STATS_TZ_SQL, STATS_TIMEZONE_KEY } from './seed-zone-sql.ts';

export { STATS_TIMEZONE_KEY };

export { getStatsTimeZone };

/**
 * The name the stats zone `tz` is stored under (postgresTimeZone: the one PostgreSQL and Intl read
 * alike, since workers cut days in SQL and the dashboards in Node), or null when Intl or this
 * PostgreSQL server does not know the zone (AT TIME ZONE needs the latter).
 */
async function storedZoneName(db: Db, tz: string): Promise<string | null> {
  if (!isValidTimeZone(tz)) return null;
  const name = postgresTimeZone(tz);
  const rows = await db.$queryRawUnsafe<{ ok: boolean }[]>('SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS ok', name);
  return rows[0]?.ok === true ? name : null;
}

/**
 * Stores `envZone` (TICKFLOW_STATS_TZ) as the stats zone, under its canonical name
 * (postgresTimeZone), when none is stored yet; an existing setting always wins, so the variable can never make two
 * processes disagree. Returns what was stored, or null (nothing to seed, an
 * unknown zone, or a setting already present).
 */
export async function seedStatsTimeZone(db: Db, envZone: string | undefined = process.env.TICKFLOW_STATS_TZ): Promise<string | null> {
  const given = envZone?.trim();
  if (!given || !isValidTimeZone(given)) return null;
  const tz = postgresTimeZone(given);
  const n = await db.$executeRawUnsafe(SEED_STATS_TZ_SQL, tz);
  return n > 0 ? tz : null;
}

export const SetStatsTimeZoneInput = z.strictObject({ timezone: z.string().trim().min(1, 'Time zone is required').max(100) });

export type SetStatsTimeZoneResult = { timezone: string; previous: string; rebuilt: RebuildResult | null };

/**
 * Changes the stats zone (admin only) and, in the same transaction, rebuilds
 * handler_stats_daily from the detail rows for every day they still cover
 * (retention keeps about TICKFLOW_RETENTION_DAYS; older days keep the cut they
 * were booked with): the table is locked against concurrent bookings first
 * (SHARE ROW EXCLUSIVE), so a completion either finished before (and is
 * rebuilt) or books after the commit, in the new zone. Unchanged zone: nothing
 * is written. The zone is stored, and answered, under its canonical name ('CET' becomes
 * 'Europe/Brussels': storedZoneName). Throws DomainError validation (`timezone`: unknown to Intl
 * or to PostgreSQL), forbidden.
 */
export async function setStatsTimeZone(db: Db, rawInput: unknown, actor: Actor, now: Date = new Date()): Promise<SetStatsTimeZoneResult> {
  requireCan(actor, 'settings.manage');
  const given = parseOrThrow(SetStatsTimeZoneInput, rawInput).timezone;
  const timezone = await storedZoneName(db, given);
  if (!timezone) {
    throw new DomainError('validation', `Unknown time zone: ${given}`, { timezone: 'Unknown time zone' });
  }
  return inTransaction(db, async (tx: Prisma.TransactionClient) => {
    await tx.$executeRawUnsafe('LOCK TABLE handler_stats_daily IN SHARE ROW EXCLUSIVE MODE');
    const previous = await getStatsTimeZone(tx);
    if (previous === timezone) return { timezone, previous, rebuilt: null };
    await tx.$executeRawUnsafe(
      `INSERT INTO settings (key, value, updated_at) VALUES ($1, to_jsonb($2::text), $3::timestamptz)
       ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at`,
      STATS_TIMEZONE_KEY,
      timezone,
      now,
    );
    const first = await tx.$queryRawUnsafe<{ at: Date | null }[]>('SELECT min(created_at) AS at FROM task_logs');
    if (!first[0]?.at) return { timezone, previous, rebuilt: null };
    // Retention deletes detail rows older than its cutoff, so the day it last cut
    // into is partial: rebuild from the day after it; a first day well inside the
    // retention window is whole and is rebuilt too.
    const cutoff = now.getTime() - retentionDays() * 86_400_000;
    // The same detail rows were booked on the old zone's dates: cover whichever starts earlier.
    const inNew = statDateOf(first[0].at, timezone);
    const inOld = statDateOf(first[0].at, previous);
    const firstDay = inOld < inNew ? inOld : inNew;
    const from = first[0].at.getTime() - cutoff > 86_400_000 ? firstDay : addDays(firstDay, 1);
    // Rows booked in a zone ahead of the new one may carry tomorrow's date: cover them too.
    const todayNew = statDateOf(now, timezone);
    const todayOld = statDateOf(now, previous);
    const to = addDays(todayOld > todayNew ? todayOld : todayNew, 1);
    const rebuilt = from <= to ? await rebuildStats(tx, { from, to, apply: true, timeZone: timezone }, now) : null;
    return { timezone, previous, rebuilt };
  }, { timeoutMs: REBUILD_TIMEOUT_MS }); // a rebuild of the retention window: minutes on a large installation
}
