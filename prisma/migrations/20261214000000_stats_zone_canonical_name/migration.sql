-- The stats zone cuts days in two places that must agree: PostgreSQL (tickflow_stats_tz() in
-- AT TIME ZONE, when workers book) and Node's Intl (the dashboards' and the stats check's dates).
-- PostgreSQL reads a name that is also a time zone abbreviation as the abbreviation's fixed offset
-- (PostgreSQL docs 8.5.3 "Time Zones"), and four such names were accepted as stats zones because
-- pg_timezone_names lists them too: CET, MET, EET and WET, which Intl reads as zones with summer
-- time. New settings are stored under the canonical name Intl resolves (lib/schedule/timezone.ts
-- postgresTimeZone); a setting stored before is moved to the same name here. Days booked before
-- keep the cut they were booked with (summer days an hour off): `npm run stats:rebuild -- --apply`
-- recuts the days the detail rows still cover.
UPDATE settings
   SET value = to_jsonb(CASE value #>> '{}'
                          WHEN 'CET' THEN 'Europe/Brussels'
                          WHEN 'MET' THEN 'Europe/Brussels'
                          WHEN 'EET' THEN 'Europe/Athens'
                          WHEN 'WET' THEN 'Europe/Lisbon'
                        END),
       updated_at = now()
 WHERE key = 'stats.timezone' AND value #>> '{}' IN ('CET', 'MET', 'EET', 'WET');
