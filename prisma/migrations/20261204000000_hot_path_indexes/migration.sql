-- The claim and completion hot paths write every index of the rows they touch: a one-step task
-- updates its task row twice, its run row once or twice, its job row once and appends two
-- task_logs rows, and none of those updates can be HOT (status sits in the indexes), so each
-- index costs a tuple per write. Measured on PostgreSQL 15 (claim + completion of 30,000
-- one-step tasks in batches of 128, 3 connections): the three indexes dropped here and the
-- job row's free space took the database's CPU per task from 183 to 123-157 µs
-- (docs/operations.md "The hot path's writes").

-- tasks_run_step_uniq (run_id, step_key, scheduled_for) serves every lookup by run_id.
DROP INDEX tasks_run_idx;

-- Task log rows are read by task (the run page reads its tasks' logs, retention deletes a
-- week's logs by task): task_logs_task_idx (task_id, id) serves them.
DROP INDEX task_logs_run_idx;

-- Reads by created_at (the stats rebuild, the hourly and per-job series, the stats zone's
-- first day) are ranges of days: a BRIN index answers them, since a partition's rows are
-- appended in created_at order, and costs an insert almost nothing.
DROP INDEX task_logs_created_idx;
CREATE INDEX task_logs_created_idx ON task_logs USING brin (created_at) WITH (pages_per_range = 32);

-- A job row is updated by every run it gets (trigger: total_runs; end: counters). None of those
-- columns is indexed, so with free space on its page the update is HOT (no index tuples).
-- Applies to pages written from now on (existing pages fill as rows move).
ALTER TABLE jobs SET (fillfactor = 70);
