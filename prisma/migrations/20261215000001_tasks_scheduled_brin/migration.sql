-- The hourly stats series of every job (GET /stats/series?granularity=hour, lib/stats/detail-stats-sql.ts)
-- joins the logs of the last hours to their tasks. With no way to read tasks by scheduled_for,
-- PostgreSQL hashed every task of the history, a sequential scan of every weekly partition
-- (1,000,000 runs: 1.4-2.3 s for 48 hours on a loaded machine, bench/history.ts). The series now
-- reads the tasks of the range of scheduled_for its logs belong to; this index finds them.
-- BRIN, as task_logs_created_idx: a partition's tasks are inserted in about scheduled_for order (a
-- run's slot, at or a little before it fires), so a few block ranges answer a range of days, and an
-- insert costs the hot path almost nothing (docs/operations.md "The hot path's writes").
CREATE INDEX tasks_scheduled_idx ON tasks USING brin (scheduled_for) WITH (pages_per_range = 32);
