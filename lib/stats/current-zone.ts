import type { Db } from '../db.ts';

/**
 * The stats zone every booking statement uses right now: the `stats.timezone`
 * setting, 'UTC' when never set (tickflow_stats_tz(), migration
 * 20261201200000_stats_timezone_setting). Read inside a transaction, it is that
 * transaction's view.
 */
export async function getStatsTimeZone(db: Db): Promise<string> {
  const rows = await db.$queryRawUnsafe<{ tz: string }[]>('SELECT tickflow_stats_tz() AS tz');
  return rows[0]?.tz ?? 'UTC';
}
