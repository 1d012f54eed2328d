/** settings key of the stats zone (a JSON string such as "Asia/Shanghai"). */
export const STATS_TIMEZONE_KEY = 'stats.timezone';

/**
 * Stores $1 (a zone's canonical name: lib/schedule/timezone.ts postgresTimeZone) as the stats
 * zone unless one is stored already, and only when PostgreSQL knows the zone. The one seeding rule, used by the
 * migration runner at start-up (TICKFLOW_STATS_TZ) and by lib/stats/stats-zone.ts.
 */
export const SEED_STATS_TZ_SQL = `INSERT INTO settings (key, value, updated_at)
  SELECT '${STATS_TIMEZONE_KEY}', to_jsonb($1::text), now()
   WHERE EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1::text)
  ON CONFLICT (key) DO NOTHING`;
