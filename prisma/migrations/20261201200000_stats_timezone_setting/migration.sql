-- The zone that cuts handler_stats_daily days is one database setting
-- (settings key 'stats.timezone', a JSON string such as "Asia/Shanghai"), not a
-- per-process variable: every statement that books stats reads it here, so two
-- workers can never split one day between two dates. No row = 'UTC'.
-- VOLATILE on purpose: in READ COMMITTED each call takes a fresh snapshot, so a
-- completion that waited for a zone change's lock on handler_stats_daily
-- (lib/stats/stats-zone.ts) books its day in the new zone.
CREATE FUNCTION tickflow_stats_tz() RETURNS text
  LANGUAGE sql VOLATILE
  AS $$ SELECT coalesce((SELECT value #>> '{}' FROM settings WHERE key = 'stats.timezone'), 'UTC') $$;
