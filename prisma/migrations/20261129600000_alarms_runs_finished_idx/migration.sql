-- STATS: finished runs in finish order (lib/alarms/scan-finished-runs.ts).
-- The alarm dispatcher walks runs by (finished_at, id) past a cursor to raise per-job
-- failure / timeout / success alarms exactly once per run. Without this index each pass
-- would scan the whole runs table; with it a pass is a short range read. Partial: open
-- runs (finished_at NULL) are not in it.
CREATE INDEX runs_finished_idx ON runs (finished_at, id) WHERE finished_at IS NOT NULL;
