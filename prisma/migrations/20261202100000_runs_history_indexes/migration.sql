-- Runs list and overview at history scale (bench/history.ts; figures in README "Benchmarks").
-- With a million runs the runs list filtered by status across jobs and the search by error
-- text each took ~0.8 s, and both grow with the table: the status filter walked runs_time_idx
-- discarding other statuses (and counted up to RUN_TOTAL_CAP matches the same way), the
-- error search read every run. The overview's 24 h count by status fetched every run of the
-- day from the heap.
--
-- Runs list filtered by status (lib/runs/list-runs.ts): equality on status, then the list's
-- keyset order, so a page and the capped total are index range reads (index-only for the total).
CREATE INDEX runs_status_time_idx ON runs (status, scheduled_for DESC, id DESC);

-- Overview runs 24 h by status (lib/stats/get-overview.ts): runs_time_idx carries status, so
-- counting a day of runs is an index-only scan; the runs list's order is unchanged.
DROP INDEX runs_time_idx;
CREATE INDEX runs_time_idx ON runs (scheduled_for DESC, id DESC) INCLUDE (status);

-- Runs list `q` (error text, case-insensitive substring, lib/runs/list-runs.ts): a trigram
-- index, partial because only failed and timed-out runs carry an error. pg_trgm is created by
-- 20261201600000_task_log_lines.
CREATE INDEX runs_error_trgm_idx ON runs USING gin (error gin_trgm_ops) WHERE error IS NOT NULL;
