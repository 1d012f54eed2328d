-- TASK LOG LINES: what a handler prints while an attempt runs (docs/task-logs.md), beside
-- task_logs (one row per task STATE CHANGE). Append-only; written by the worker in batches.
--
-- Shaped to be range-partitioned by `time` later without a rewrite of the code: `time` is
-- NOT NULL and part of the primary key (a partitioned table's unique constraints must
-- include the partition key), and nothing references this table or is referenced by it
-- (no foreign keys: retention deletes lines explicitly, with their runs).
CREATE TYPE task_log_level AS ENUM ('debug', 'info', 'warn', 'error');
CREATE TYPE task_log_stream AS ENUM ('log', 'stdout', 'stderr', 'progress', 'system');

CREATE TABLE task_log_lines (
  task_id  uuid NOT NULL,
  attempt  integer NOT NULL,
  seq      integer NOT NULL,
  time     timestamptz(3) NOT NULL,
  run_id   uuid NOT NULL,
  job_id   text NOT NULL,
  level    task_log_level NOT NULL DEFAULT 'info',
  stream   task_log_stream NOT NULL DEFAULT 'log',
  text     text NOT NULL,
  fields   jsonb,
  CONSTRAINT task_log_lines_pkey PRIMARY KEY (task_id, attempt, seq, time),
  CONSTRAINT task_log_lines_seq_positive CHECK (seq >= 1 AND attempt >= 1)
);
-- Search newest first across all jobs, and retention by age.
CREATE INDEX task_log_lines_time_idx ON task_log_lines (time DESC);
-- Search newest first inside one job.
CREATE INDEX task_log_lines_job_time_idx ON task_log_lines (job_id, time DESC);

-- Substring search (`ILIKE '%…%'`) over the text: a trigram GIN index. pg_trgm ships with
-- PostgreSQL's contrib (the embedded server and Debian's packages both have it) and is a
-- trusted extension since PostgreSQL 13, so a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
-- Inserts go to GIN's pending list (fastupdate, the default) and are merged into the index in
-- bulk once it holds gin_pending_list_limit: 16 MB instead of 4 MB makes those merges fewer
-- and cheaper per line (the worker's log connection also runs with a larger work_mem, which
-- the merge uses); a search scans at most that much unmerged list.
CREATE INDEX task_log_lines_text_trgm_idx ON task_log_lines USING gin (text gin_trgm_ops)
  WITH (gin_pending_list_limit = 16384);

-- Same rule as task_logs: no UPDATE, no TRUNCATE; DELETE only by retention
-- (SET LOCAL tickflow.retention = 'on' in the deleting transaction).
CREATE FUNCTION task_log_lines_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('tickflow.retention', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'task_log_lines is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER task_log_lines_append_only BEFORE UPDATE OR DELETE ON task_log_lines
  FOR EACH ROW EXECUTE FUNCTION task_log_lines_append_only();
CREATE TRIGGER task_log_lines_no_truncate BEFORE TRUNCATE ON task_log_lines
  FOR EACH STATEMENT EXECUTE FUNCTION task_log_lines_append_only();
