-- HISTORY PARTITIONS (docs/operations.md "History partitions"): runs, tasks,
-- task_dependencies, task_logs and task_log_lines become range-partitioned tables, one
-- partition per UTC week (Monday 00:00 to Monday 00:00), plus a DEFAULT partition each for
-- rows outside every week that has one. Retention (lib/system-jobs/retention.ts) detaches and
-- drops a week whole once every run in it is past the cutoff: no mass DELETE, no bloat.
--
-- The partition key of all five tables is `scheduled_for`, the run's nominal fire time:
-- - exactly-once firing is the unique index runs (job_id, scheduled_for); a unique index on a
--   partitioned table must contain the partition key, and this one does, so it stays global
--   in effect (two runs of one slot land in the same partition);
-- - tasks already carried the run's scheduled_for; task_dependencies, task_logs and
--   task_log_lines get it too, so a run and everything it owns live in the same week and
--   are dropped together;
-- - keys grow by that column: runs (id, scheduled_for), tasks (id, scheduled_for), and the
--   foreign keys become composite, tasks (run_id, scheduled_for) -> runs and
--   task_dependencies (task_id | parent_task_id, scheduled_for) -> tasks, which also forces a
--   task's scheduled_for to equal its run's. They are declared between the partitions of one
--   week (tasks_wX -> runs_wX, ...; the same for the default partitions), which holds the same
--   rows to the same rule, since a row and the row it references share scheduled_for and so
--   the week: a foreign key on the parent tables would make every detach of a runs partition
--   scan the whole tasks table to prove nothing references it, under a lock that stops the
--   engine; between partitions, a week's tables are dropped together in one statement.
--   Ids are still random v4 UUIDs generated once
--   (122 random bits), which is what keeps an id alone unique in practice: PostgreSQL cannot
--   enforce uniqueness of a column that is not the partition key across partitions.
-- - resource-key exclusion ("at most one running task per key across all runs") was a
--   unique partial index on tasks (resource_key); without the partition key it could only
--   hold per partition, so it moves to the unpartitioned running_resources table, kept by
--   triggers on tasks in the statement that starts or ends the attempt.
--
-- Existing rows are copied into the new tables in this migration's transaction.

-- ---------------------------------------------------------------- the old tables aside
ALTER TABLE task_log_lines RENAME TO task_log_lines_unpartitioned;
ALTER TABLE task_logs RENAME TO task_logs_unpartitioned;
ALTER TABLE task_dependencies RENAME TO task_dependencies_unpartitioned;
ALTER TABLE tasks RENAME TO tasks_unpartitioned;
ALTER TABLE runs RENAME TO runs_unpartitioned;
ALTER SEQUENCE task_logs_id_seq OWNED BY NONE;
ALTER TABLE task_logs_unpartitioned ALTER COLUMN id DROP DEFAULT;

-- Their key and index names are the new tables' names: free them (only the data is copied,
-- the old tables are dropped at the end). Foreign keys first: they depend on the keys.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
            WHERE conrelid IN ('task_log_lines_unpartitioned'::regclass, 'task_logs_unpartitioned'::regclass,
                               'task_dependencies_unpartitioned'::regclass, 'tasks_unpartitioned'::regclass,
                               'runs_unpartitioned'::regclass)
              AND contype = 'f'
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
  END LOOP;
  FOR c IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint
            WHERE conrelid IN ('task_log_lines_unpartitioned'::regclass, 'task_logs_unpartitioned'::regclass,
                               'task_dependencies_unpartitioned'::regclass, 'tasks_unpartitioned'::regclass,
                               'runs_unpartitioned'::regclass)
              AND contype IN ('p', 'u')
  LOOP
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', c.tbl, c.conname);
  END LOOP;
  FOR c IN SELECT indexrelid::regclass AS idx FROM pg_index
            WHERE indrelid IN ('task_log_lines_unpartitioned'::regclass, 'task_logs_unpartitioned'::regclass,
                               'task_dependencies_unpartitioned'::regclass, 'tasks_unpartitioned'::regclass,
                               'runs_unpartitioned'::regclass)
  LOOP
    EXECUTE format('DROP INDEX %s', c.idx);
  END LOOP;
END $$;

-- ---------------------------------------------------------------- runs
-- runs.job_id is a string reference with no FK so runs and logs survive a purge.
CREATE TABLE runs (
  id             uuid NOT NULL DEFAULT gen_random_uuid(),
  job_id         text NOT NULL,
  job_key        text NOT NULL,
  job_version    integer NOT NULL,
  trigger        run_trigger NOT NULL,
  triggered_by   text NOT NULL,
  scheduled_for  timestamptz(3) NOT NULL,
  status         run_status NOT NULL DEFAULT 'pending',
  reason         text,
  params         jsonb NOT NULL DEFAULT '{}',
  started_at     timestamptz(3),
  finished_at    timestamptz(3),
  duration_ms    integer,
  error          text,
  trace_id       text NOT NULL,
  parent_run_id  uuid,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT runs_pkey PRIMARY KEY (id, scheduled_for),
  CONSTRAINT runs_finished_when_final CHECK ((status IN ('pending', 'running')) = (finished_at IS NULL))
) PARTITION BY RANGE (scheduled_for);
CREATE INDEX runs_job_idx ON runs (job_id, scheduled_for DESC, id DESC);
CREATE INDEX runs_time_idx ON runs (scheduled_for DESC, id DESC) INCLUDE (status);
CREATE INDEX runs_status_time_idx ON runs (status, scheduled_for DESC, id DESC);
CREATE INDEX runs_active_idx ON runs (job_id, created_at) WHERE status IN ('pending', 'running');
CREATE INDEX runs_parent_idx ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
CREATE INDEX runs_finished_idx ON runs (finished_at, id) WHERE finished_at IS NOT NULL;
CREATE INDEX runs_error_trgm_idx ON runs USING gin (error gin_trgm_ops) WHERE error IS NOT NULL;
-- A schedule fires a given instant of a job at most once (exactly-once firing); a cancelled
-- look-ahead run gives its slot back (20261201400000_lookahead_fires).
CREATE UNIQUE INDEX runs_schedule_fire_uniq ON runs (job_id, scheduled_for)
  WHERE trigger = 'schedule' AND status <> 'cancelled';
CREATE UNIQUE INDEX runs_backfill_slot_uniq ON runs (job_id, scheduled_for) WHERE trigger = 'backfill';
CREATE TRIGGER runs_valid_transition BEFORE UPDATE OF status ON runs
  FOR EACH ROW EXECUTE FUNCTION runs_valid_transition();

-- ---------------------------------------------------------------- tasks
CREATE TABLE tasks (
  id               uuid NOT NULL DEFAULT gen_random_uuid(),
  run_id           uuid NOT NULL,
  job_id           text NOT NULL,
  step_key         text NOT NULL,
  handler          text NOT NULL,
  config           jsonb NOT NULL DEFAULT '{}',
  payload          jsonb NOT NULL DEFAULT '{}',
  status           task_status NOT NULL DEFAULT 'pending',
  priority         integer NOT NULL DEFAULT 0,
  attempt          integer NOT NULL DEFAULT 1,
  max_retries      integer NOT NULL DEFAULT 0,
  timeout_seconds  integer NOT NULL DEFAULT 300,
  backoff          jsonb NOT NULL DEFAULT '{}',
  schedule_at      timestamptz(3) NOT NULL DEFAULT now(),
  -- the run's scheduled_for (the composite foreign key below holds them equal)
  scheduled_for    timestamptz(3) NOT NULL,
  pending_parents  integer NOT NULL DEFAULT 0,
  resource_key     text,
  routing          jsonb NOT NULL DEFAULT '{}',
  locked_by        text,
  lease_until      timestamptz(3),
  started_at       timestamptz(3),
  completed_at     timestamptz(3),
  output           jsonb,
  error            text,
  exit_code        integer,
  version          integer NOT NULL DEFAULT 1,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now(),
  timed_out_at     timestamptz(3),
  CONSTRAINT tasks_pkey PRIMARY KEY (id, scheduled_for),
  CONSTRAINT tasks_run_step_uniq UNIQUE (run_id, step_key, scheduled_for),
  -- foreign key (run_id, scheduled_for) -> runs: per partition, tickflow_link_history_partition
  CONSTRAINT tasks_attempt_positive CHECK (attempt >= 1 AND max_retries >= 0 AND timeout_seconds > 0),
  CONSTRAINT tasks_pending_parents_nonnegative CHECK (pending_parents >= 0),
  CONSTRAINT tasks_running_has_lease CHECK (status <> 'running' OR (locked_by IS NOT NULL AND lease_until IS NOT NULL))
) PARTITION BY RANGE (scheduled_for);
-- The claim index: only ready rows, in claim order.
CREATE INDEX tasks_claim_idx ON tasks (priority DESC, schedule_at) WHERE status = 'pending' AND pending_parents = 0;
-- The reaper scans running tasks by lease expiry.
CREATE INDEX tasks_lease_idx ON tasks (lease_until) WHERE status = 'running';
CREATE INDEX tasks_run_idx ON tasks (run_id);
CREATE INDEX tasks_run_open_idx ON tasks (run_id, status, pending_parents)
  WHERE status IN ('pending', 'running', 'failed', 'timeout');
CREATE TRIGGER tasks_valid_transition BEFORE UPDATE OF status ON tasks
  FOR EACH ROW EXECUTE FUNCTION tasks_valid_transition();

-- Resource-key exclusion: at most one running task per key across all runs and partitions.
-- The claim filters on this table and its insert is what fails (23505 on
-- running_resources_pkey, retried by lib/engine/claim-tasks.ts) when two claimers race for
-- tasks of one key; the triggers keep it in the statement that moves a task into or out of
-- 'running', whichever engine path that is.
CREATE TABLE running_resources (
  resource_key   text PRIMARY KEY,
  task_id        uuid NOT NULL,
  scheduled_for  timestamptz(3) NOT NULL
);
CREATE FUNCTION tasks_running_resource() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status = 'running' AND OLD.resource_key IS NOT NULL THEN
    DELETE FROM running_resources WHERE resource_key = OLD.resource_key AND task_id = OLD.id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status = 'running' AND NEW.resource_key IS NOT NULL THEN
    INSERT INTO running_resources (resource_key, task_id, scheduled_for)
    VALUES (NEW.resource_key, NEW.id, NEW.scheduled_for);
  END IF;
  RETURN NULL;
END;
$$;
-- WHEN keeps the trigger function out of every statement that does not start or end a
-- resource-keyed attempt (lease renewals, tasks without a key).
CREATE TRIGGER tasks_running_resource_update AFTER UPDATE OF status, resource_key ON tasks
  FOR EACH ROW
  WHEN ((OLD.status = 'running' OR NEW.status = 'running')
        AND (OLD.resource_key IS NOT NULL OR NEW.resource_key IS NOT NULL)
        AND (OLD.status IS DISTINCT FROM NEW.status OR OLD.resource_key IS DISTINCT FROM NEW.resource_key))
  EXECUTE FUNCTION tasks_running_resource();
CREATE TRIGGER tasks_running_resource_insert AFTER INSERT ON tasks
  FOR EACH ROW WHEN (NEW.status = 'running' AND NEW.resource_key IS NOT NULL)
  EXECUTE FUNCTION tasks_running_resource();
CREATE TRIGGER tasks_running_resource_delete AFTER DELETE ON tasks
  FOR EACH ROW WHEN (OLD.status = 'running' AND OLD.resource_key IS NOT NULL)
  EXECUTE FUNCTION tasks_running_resource();

-- ---------------------------------------------------------------- task_dependencies
CREATE TABLE task_dependencies (
  id              uuid NOT NULL DEFAULT gen_random_uuid(),
  task_id         uuid NOT NULL,
  parent_task_id  uuid NOT NULL,
  dep_type        dep_type NOT NULL DEFAULT 'hard',
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  -- the run's scheduled_for: both ends are tasks of that run
  scheduled_for   timestamptz(3) NOT NULL,
  CONSTRAINT task_dependencies_pkey PRIMARY KEY (id, scheduled_for),
  CONSTRAINT task_dependencies_uniq UNIQUE (task_id, parent_task_id, scheduled_for),
  -- foreign keys (task_id | parent_task_id, scheduled_for) -> tasks: per partition, tickflow_link_history_partition
  CONSTRAINT task_dependencies_no_self CHECK (task_id <> parent_task_id)
) PARTITION BY RANGE (scheduled_for);
CREATE INDEX task_dependencies_parent_idx ON task_dependencies (parent_task_id);

-- ---------------------------------------------------------------- task_logs
-- Append-only audit of every task state change (no foreign key: retention deletes them with
-- their runs, a week at a time).
CREATE TABLE task_logs (
  id             bigint NOT NULL DEFAULT nextval('task_logs_id_seq'),
  task_id        uuid NOT NULL,
  run_id         uuid NOT NULL,
  attempt        integer NOT NULL DEFAULT 1,
  from_status    task_status,
  to_status      task_status NOT NULL,
  message        text NOT NULL DEFAULT '',
  detail         jsonb,
  node_id        text,
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  -- the run's scheduled_for
  scheduled_for  timestamptz(3) NOT NULL,
  CONSTRAINT task_logs_pkey PRIMARY KEY (id, scheduled_for)
) PARTITION BY RANGE (scheduled_for);
ALTER SEQUENCE task_logs_id_seq OWNED BY task_logs.id;
CREATE INDEX task_logs_task_idx ON task_logs (task_id, id);
CREATE INDEX task_logs_run_idx ON task_logs (run_id, id);
CREATE INDEX task_logs_created_idx ON task_logs (created_at);
CREATE TRIGGER task_logs_append_only BEFORE UPDATE OR DELETE ON task_logs
  FOR EACH ROW EXECUTE FUNCTION task_logs_append_only();
CREATE TRIGGER task_logs_no_truncate BEFORE TRUNCATE ON task_logs
  FOR EACH STATEMENT EXECUTE FUNCTION task_logs_append_only();

-- ---------------------------------------------------------------- task_log_lines
CREATE TABLE task_log_lines (
  task_id        uuid NOT NULL,
  attempt        integer NOT NULL,
  seq            integer NOT NULL,
  time           timestamptz(3) NOT NULL,
  run_id         uuid NOT NULL,
  job_id         text NOT NULL,
  level          task_log_level NOT NULL DEFAULT 'info',
  stream         task_log_stream NOT NULL DEFAULT 'log',
  text           text NOT NULL,
  fields         jsonb,
  -- the run's scheduled_for
  scheduled_for  timestamptz(3) NOT NULL,
  CONSTRAINT task_log_lines_pkey PRIMARY KEY (task_id, attempt, seq, time, scheduled_for),
  CONSTRAINT task_log_lines_seq_positive CHECK (seq >= 1 AND attempt >= 1)
) PARTITION BY RANGE (scheduled_for);
CREATE INDEX task_log_lines_time_idx ON task_log_lines (time DESC);
CREATE INDEX task_log_lines_job_time_idx ON task_log_lines (job_id, time DESC);
CREATE INDEX task_log_lines_text_trgm_idx ON task_log_lines USING gin (text gin_trgm_ops)
  WITH (gin_pending_list_limit = 16384);
CREATE TRIGGER task_log_lines_append_only BEFORE UPDATE OR DELETE ON task_log_lines
  FOR EACH ROW EXECUTE FUNCTION task_log_lines_append_only();
CREATE TRIGGER task_log_lines_no_truncate BEFORE TRUNCATE ON task_log_lines
  FOR EACH STATEMENT EXECUTE FUNCTION task_log_lines_append_only();

-- ---------------------------------------------------------------- partitions
-- The foreign keys of one partition set `<table>_<suffix>` (suffix `w<YYYYMMDD>` or `default`):
-- tasks -> runs, task_dependencies (both ends) -> tasks, ON DELETE CASCADE as the history
-- tables always had. Named after the parent tables' keys with the suffix.
CREATE FUNCTION tickflow_link_history_partition(p_suffix text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (run_id, scheduled_for) REFERENCES %I (id, scheduled_for) ON DELETE CASCADE',
                 'tasks_' || p_suffix, 'tasks_run_id_fkey_' || p_suffix, 'runs_' || p_suffix);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (task_id, scheduled_for) REFERENCES %I (id, scheduled_for) ON DELETE CASCADE',
                 'task_dependencies_' || p_suffix, 'task_dependencies_task_id_fkey_' || p_suffix, 'tasks_' || p_suffix);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (parent_task_id, scheduled_for) REFERENCES %I (id, scheduled_for) ON DELETE CASCADE',
                 'task_dependencies_' || p_suffix, 'task_dependencies_parent_task_id_fkey_' || p_suffix, 'tasks_' || p_suffix);
END;
$$;

CREATE TABLE runs_default PARTITION OF runs DEFAULT;
CREATE TABLE tasks_default PARTITION OF tasks DEFAULT;
CREATE TABLE task_dependencies_default PARTITION OF task_dependencies DEFAULT;
CREATE TABLE task_logs_default PARTITION OF task_logs DEFAULT;
CREATE TABLE task_log_lines_default PARTITION OF task_log_lines DEFAULT;
SELECT tickflow_link_history_partition('default');

-- The history tables in parent-to-child order (creation order; retention drops in reverse).
CREATE FUNCTION tickflow_history_tables() RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT ARRAY['runs', 'tasks', 'task_dependencies', 'task_logs', 'task_log_lines']
$$;

-- Creates the weekly partitions `<table>_w<YYYYMMDD>` (the Monday, UTC) of every history
-- table, with their foreign keys, for each week that overlaps [p_from, p_to), where missing. A week whose range already
-- holds rows in runs_default is skipped (PostgreSQL refuses to create a partition the default
-- partition has rows for; those rows stay in the default partition, which retention empties
-- row by row). Returns the weeks created. Called by this migration and by the
-- system.partitions job (lib/system-jobs/partitions.ts).
CREATE FUNCTION tickflow_ensure_history_partitions(p_from timestamptz, p_to timestamptz)
RETURNS SETOF date LANGUAGE plpgsql AS $$
DECLARE
  wk date;
  lo timestamptz;
  hi timestamptz;
  tbl text;
BEGIN
  wk := date_trunc('week', p_from AT TIME ZONE 'UTC')::date;
  WHILE (wk::timestamp AT TIME ZONE 'UTC') < p_to LOOP
    lo := wk::timestamp AT TIME ZONE 'UTC';
    hi := (wk + 7)::timestamp AT TIME ZONE 'UTC';
    IF to_regclass(format('runs_w%s', to_char(wk, 'YYYYMMDD'))) IS NULL
       AND NOT EXISTS (SELECT 1 FROM runs_default WHERE scheduled_for >= lo AND scheduled_for < hi) THEN
      FOREACH tbl IN ARRAY tickflow_history_tables() LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                       format('%s_w%s', tbl, to_char(wk, 'YYYYMMDD')), tbl, lo, hi);
      END LOOP;
      PERFORM tickflow_link_history_partition(format('w%s', to_char(wk, 'YYYYMMDD')));
      RETURN NEXT wk;
    END IF;
    wk := wk + 7;
  END LOOP;
END;
$$;

-- Weeks for the rows being copied (their last 26 weeks at most: older ones go to the default
-- partition, which retention empties row by row) and two weeks ahead.
SELECT count(*) FROM tickflow_ensure_history_partitions(
  greatest(coalesce((SELECT min(scheduled_for) FROM runs_unpartitioned), now()), now() - interval '182 days'),
  now() + interval '15 days');

-- ---------------------------------------------------------------- copy
INSERT INTO runs (id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason, params,
                  started_at, finished_at, duration_ms, error, trace_id, parent_run_id, created_at, updated_at)
SELECT id, job_id, job_key, job_version, trigger, triggered_by, scheduled_for, status, reason, params,
       started_at, finished_at, duration_ms, error, trace_id, parent_run_id, created_at, updated_at
  FROM runs_unpartitioned;
INSERT INTO tasks (id, run_id, job_id, step_key, handler, config, payload, status, priority, attempt, max_retries,
                   timeout_seconds, backoff, schedule_at, scheduled_for, pending_parents, resource_key, routing,
                   locked_by, lease_until, started_at, completed_at, output, error, exit_code, version,
                   created_at, updated_at, timed_out_at)
SELECT t.id, t.run_id, t.job_id, t.step_key, t.handler, t.config, t.payload, t.status, t.priority, t.attempt, t.max_retries,
       t.timeout_seconds, t.backoff, t.schedule_at, r.scheduled_for, t.pending_parents, t.resource_key, t.routing,
       t.locked_by, t.lease_until, t.started_at, t.completed_at, t.output, t.error, t.exit_code, t.version,
       t.created_at, t.updated_at, t.timed_out_at
  FROM tasks_unpartitioned t JOIN runs_unpartitioned r ON r.id = t.run_id;
INSERT INTO task_dependencies (id, task_id, parent_task_id, dep_type, created_at, scheduled_for)
SELECT d.id, d.task_id, d.parent_task_id, d.dep_type, d.created_at, r.scheduled_for
  FROM task_dependencies_unpartitioned d
  JOIN tasks_unpartitioned t ON t.id = d.task_id
  JOIN runs_unpartitioned r ON r.id = t.run_id;
-- a log row of a run that no longer exists keeps its own time as the partition key
INSERT INTO task_logs (id, task_id, run_id, attempt, from_status, to_status, message, detail, node_id, created_at, scheduled_for)
SELECT l.id, l.task_id, l.run_id, l.attempt, l.from_status, l.to_status, l.message, l.detail, l.node_id, l.created_at,
       coalesce(r.scheduled_for, l.created_at)
  FROM task_logs_unpartitioned l LEFT JOIN runs_unpartitioned r ON r.id = l.run_id;
INSERT INTO task_log_lines (task_id, attempt, seq, time, run_id, job_id, level, stream, text, fields, scheduled_for)
SELECT l.task_id, l.attempt, l.seq, l.time, l.run_id, l.job_id, l.level, l.stream, l.text, l.fields,
       coalesce(r.scheduled_for, l.time)
  FROM task_log_lines_unpartitioned l LEFT JOIN runs_unpartitioned r ON r.id = l.run_id;
-- running_resources: filled by tasks_running_resource_insert as the running tasks are copied.

-- DROP TABLE fires no row trigger: the old append-only triggers go with their tables.
DROP TABLE task_log_lines_unpartitioned, task_logs_unpartitioned, task_dependencies_unpartitioned,
           tasks_unpartitioned, runs_unpartitioned;
