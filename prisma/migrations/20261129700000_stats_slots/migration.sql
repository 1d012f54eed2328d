-- STATS: spread each day's handler counters over slots (lib/engine/stats.ts STATS_SLOTS).
-- Every completion of a handler used to upsert the same (stat_date, handler) row and held
-- its lock until COMMIT, WAL flush included, so completions of one handler ran one at a
-- time (bench/throughput.ts on a server with fsync on: most backends in
-- Lock:transactionid on this row). Each completion now adds to the slot of its database
-- connection (pg_backend_pid() % 16); readers sum the slots of a (day, handler).
-- Existing rows become slot 0.
ALTER TABLE handler_stats_daily ADD COLUMN slot integer NOT NULL DEFAULT 0;
ALTER TABLE handler_stats_daily DROP CONSTRAINT handler_stats_daily_pkey;
ALTER TABLE handler_stats_daily ADD CONSTRAINT handler_stats_daily_pkey PRIMARY KEY (stat_date, handler, slot);
