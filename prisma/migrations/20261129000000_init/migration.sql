-- Tickflow initial schema (docs/design.md §3). Works on PostgreSQL 15 and 18.
-- Invariants are named CHECK constraints so violations are readable in errors.

CREATE TYPE schedule_kind AS ENUM ('cron', 'interval', 'once', 'manual');
CREATE TYPE misfire_policy AS ENUM ('skip', 'fire_once', 'fire_all');
CREATE TYPE block_strategy AS ENUM ('discard_later', 'serial_execution', 'cover_early');
CREATE TYPE job_status AS ENUM ('active', 'paused', 'dead_letter');
CREATE TYPE routing_strategy AS ENUM ('any', 'consistent_hash', 'nodes');
CREATE TYPE dep_type AS ENUM ('hard', 'soft', 'on_failure');
CREATE TYPE change_type AS ENUM ('create', 'update', 'pause', 'resume', 'delete', 'restore', 'rollback');
CREATE TYPE run_trigger AS ENUM ('schedule', 'manual', 'api', 'retry');
CREATE TYPE run_status AS ENUM ('pending', 'running', 'success', 'failed', 'timeout', 'cancelled', 'skipped');
CREATE TYPE task_status AS ENUM ('pending', 'running', 'success', 'failed', 'timeout', 'cancelled', 'dead', 'skipped');
CREATE TYPE node_status AS ENUM ('online', 'draining', 'offline');
CREATE TYPE alarm_type AS ENUM ('failure', 'timeout', 'dead_letter', 'success', 'node_offline');
CREATE TYPE alarm_channel AS ENUM ('webhook', 'email', 'log');
CREATE TYPE alarm_status AS ENUM ('pending', 'sent', 'failed');
CREATE TYPE user_role AS ENUM ('admin', 'operator', 'viewer');

-- ---------------------------------------------------------------- jobs
CREATE TABLE jobs (
  id                    uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  key                   text NOT NULL,
  name                  text NOT NULL,
  description           text NOT NULL DEFAULT '',
  schedule_kind         schedule_kind NOT NULL,
  cron_expression       text,
  timezone              text NOT NULL DEFAULT 'UTC',
  interval_seconds      integer,
  run_at                timestamptz(3),
  start_at              timestamptz(3),
  end_at                timestamptz(3),
  misfire_policy        misfire_policy NOT NULL DEFAULT 'fire_once',
  misfire_max_catchup   integer NOT NULL DEFAULT 10,
  block_strategy        block_strategy NOT NULL DEFAULT 'discard_later',
  stagger_seconds       integer NOT NULL DEFAULT 0,
  priority              integer NOT NULL DEFAULT 0,
  timeout_seconds       integer NOT NULL DEFAULT 300,
  max_retries           integer NOT NULL DEFAULT 0,
  backoff_base_seconds  double precision NOT NULL DEFAULT 1,
  backoff_factor        double precision NOT NULL DEFAULT 2,
  backoff_max_seconds   double precision NOT NULL DEFAULT 300,
  backoff_jitter        double precision NOT NULL DEFAULT 0.1,
  payload               jsonb NOT NULL DEFAULT '{}',
  routing_node_group    text,
  routing_labels        jsonb NOT NULL DEFAULT '{}',
  routing_strategy      routing_strategy NOT NULL DEFAULT 'any',
  routing_nodes         text[] NOT NULL DEFAULT '{}',
  routing_key           text,
  alarm_config          jsonb NOT NULL DEFAULT '{}',
  status                job_status NOT NULL DEFAULT 'active',
  last_error            text,
  dead_letter_after     integer NOT NULL DEFAULT 0,
  consecutive_failures  integer NOT NULL DEFAULT 0,
  next_run_at           timestamptz(3),
  last_run_at           timestamptz(3),
  last_run_status       run_status,
  total_runs            integer NOT NULL DEFAULT 0,
  success_runs          integer NOT NULL DEFAULT 0,
  failed_runs           integer NOT NULL DEFAULT 0,
  version               integer NOT NULL DEFAULT 1,
  created_by            text NOT NULL DEFAULT 'system',
  updated_by            text NOT NULL DEFAULT 'system',
  created_at            timestamptz(3) NOT NULL DEFAULT now(),
  updated_at            timestamptz(3) NOT NULL DEFAULT now(),
  deleted_at            timestamptz(3),
  deleted_by            text,
  CONSTRAINT jobs_key_format CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'),
  CONSTRAINT jobs_name_not_blank CHECK (length(btrim(name)) BETWEEN 1 AND 200),
  CONSTRAINT jobs_cron_fields CHECK (schedule_kind <> 'cron' OR cron_expression IS NOT NULL),
  CONSTRAINT jobs_interval_fields CHECK (schedule_kind <> 'interval' OR (interval_seconds IS NOT NULL AND interval_seconds > 0)),
  CONSTRAINT jobs_once_fields CHECK (schedule_kind <> 'once' OR run_at IS NOT NULL),
  CONSTRAINT jobs_window_order CHECK (start_at IS NULL OR end_at IS NULL OR start_at < end_at),
  CONSTRAINT jobs_nonnegative CHECK (stagger_seconds >= 0 AND timeout_seconds > 0 AND max_retries >= 0
    AND dead_letter_after >= 0 AND consecutive_failures >= 0 AND misfire_max_catchup >= 1),
  CONSTRAINT jobs_backoff_sane CHECK (backoff_base_seconds >= 0 AND backoff_factor >= 1
    AND backoff_max_seconds >= 0 AND backoff_jitter >= 0 AND backoff_jitter <= 1),
  CONSTRAINT jobs_payload_size CHECK (pg_column_size(payload) <= 65536),
  CONSTRAINT jobs_version_positive CHECK (version >= 1)
);
-- A key is unique among live jobs only: a deleted job keeps its key in the recycle bin.
CREATE UNIQUE INDEX jobs_key_live_uniq ON jobs (key) WHERE deleted_at IS NULL;
-- The tick scans due, active, live jobs by next_run_at (docs/design.md §4 "tick").
CREATE INDEX jobs_tick_idx ON jobs (next_run_at) WHERE status = 'active' AND deleted_at IS NULL AND next_run_at IS NOT NULL;
CREATE INDEX jobs_deleted_idx ON jobs (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE INDEX jobs_list_idx ON jobs (created_at DESC, id DESC) WHERE deleted_at IS NULL;

CREATE TABLE job_steps (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id           uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  key              text NOT NULL,
  name             text NOT NULL DEFAULT '',
  handler          text NOT NULL,
  config           jsonb NOT NULL DEFAULT '{}',
  payload          jsonb NOT NULL DEFAULT '{}',
  timeout_seconds  integer,
  max_retries      integer,
  resource_key     text,
  position_x       double precision NOT NULL DEFAULT 0,
  position_y       double precision NOT NULL DEFAULT 0,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT job_steps_key_format CHECK (key ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
  CONSTRAINT job_steps_overrides CHECK ((timeout_seconds IS NULL OR timeout_seconds > 0) AND (max_retries IS NULL OR max_retries >= 0)),
  CONSTRAINT job_steps_job_key_uniq UNIQUE (job_id, key)
);

CREATE TABLE job_edges (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id      uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  from_step   text NOT NULL,
  to_step     text NOT NULL,
  dep_type    dep_type NOT NULL DEFAULT 'hard',
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT job_edges_no_self CHECK (from_step <> to_step),
  CONSTRAINT job_edges_uniq UNIQUE (job_id, from_step, to_step),
  CONSTRAINT job_edges_from_fk FOREIGN KEY (job_id, from_step) REFERENCES job_steps (job_id, key) ON DELETE CASCADE ON UPDATE CASCADE,
  CONSTRAINT job_edges_to_fk FOREIGN KEY (job_id, to_step) REFERENCES job_steps (job_id, key) ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX job_edges_to_idx ON job_edges (job_id, to_step);

CREATE TABLE job_versions (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id       uuid NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  version      integer NOT NULL,
  change_type  change_type NOT NULL,
  snapshot     jsonb NOT NULL,
  reason       text,
  created_by   text NOT NULL,
  created_at   timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT job_versions_uniq UNIQUE (job_id, version)
);

-- ---------------------------------------------------------------- runs and tasks
-- runs.job_id is a string reference with no FK so runs and logs survive a purge.
CREATE TABLE runs (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
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
  CONSTRAINT runs_finished_when_final CHECK (
    (status IN ('pending', 'running')) = (finished_at IS NULL))
);
CREATE INDEX runs_job_idx ON runs (job_id, scheduled_for DESC, id DESC);
CREATE INDEX runs_time_idx ON runs (scheduled_for DESC, id DESC);
CREATE INDEX runs_active_idx ON runs (job_id, created_at) WHERE status IN ('pending', 'running');
CREATE INDEX runs_parent_idx ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
-- A schedule fires a given instant of a job at most once (exactly-once firing, docs/design.md §4).
CREATE UNIQUE INDEX runs_schedule_fire_uniq ON runs (job_id, scheduled_for) WHERE trigger = 'schedule';

CREATE TABLE tasks (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  run_id           uuid NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
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
  scheduled_for    timestamptz(3),
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
  CONSTRAINT tasks_run_step_uniq UNIQUE (run_id, step_key),
  CONSTRAINT tasks_attempt_positive CHECK (attempt >= 1 AND max_retries >= 0 AND timeout_seconds > 0),
  CONSTRAINT tasks_pending_parents_nonnegative CHECK (pending_parents >= 0),
  CONSTRAINT tasks_running_has_lease CHECK (status <> 'running' OR (locked_by IS NOT NULL AND lease_until IS NOT NULL))
);
-- The claim index (docs/design.md §3): only ready rows, in claim order.
CREATE INDEX tasks_claim_idx ON tasks (priority DESC, schedule_at) WHERE status = 'pending' AND pending_parents = 0;
-- The reaper scans running tasks by lease expiry.
CREATE INDEX tasks_lease_idx ON tasks (lease_until) WHERE status = 'running';
-- Resource-key exclusion: at most one running task per key across all runs.
CREATE UNIQUE INDEX tasks_resource_running_uniq ON tasks (resource_key) WHERE status = 'running' AND resource_key IS NOT NULL;
CREATE INDEX tasks_run_idx ON tasks (run_id);

CREATE TABLE task_dependencies (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task_id         uuid NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  parent_task_id  uuid NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  dep_type        dep_type NOT NULL DEFAULT 'hard',
  created_at      timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT task_dependencies_uniq UNIQUE (task_id, parent_task_id),
  CONSTRAINT task_dependencies_no_self CHECK (task_id <> parent_task_id)
);
CREATE INDEX task_dependencies_parent_idx ON task_dependencies (parent_task_id);

-- task_logs: append-only audit of every task state change.
CREATE TABLE task_logs (
  id           bigserial PRIMARY KEY,
  task_id      uuid NOT NULL,
  run_id       uuid NOT NULL,
  attempt      integer NOT NULL DEFAULT 1,
  from_status  task_status,
  to_status    task_status NOT NULL,
  message      text NOT NULL DEFAULT '',
  detail       jsonb,
  node_id      text,
  created_at   timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX task_logs_task_idx ON task_logs (task_id, id);
CREATE INDEX task_logs_run_idx ON task_logs (run_id, id);
CREATE INDEX task_logs_created_idx ON task_logs (created_at);

-- Retention may delete old rows only when it says so in this transaction
-- (SET LOCAL tickflow.retention = 'on'); nothing may ever UPDATE a log row.
CREATE FUNCTION task_logs_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND current_setting('tickflow.retention', true) = 'on' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'task_logs is append-only: % is not allowed', TG_OP
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER task_logs_append_only BEFORE UPDATE OR DELETE ON task_logs
  FOR EACH ROW EXECUTE FUNCTION task_logs_append_only();
CREATE TRIGGER task_logs_no_truncate BEFORE TRUNCATE ON task_logs
  FOR EACH STATEMENT EXECUTE FUNCTION task_logs_append_only();

-- The task state machine (docs/design.md §4), enforced by the database as well as lib/engine.
CREATE FUNCTION tasks_valid_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = OLD.status THEN
    RETURN NEW;
  END IF;
  IF (OLD.status, NEW.status) IN (
      ('pending'::task_status, 'running'::task_status),
      ('running', 'success'), ('running', 'failed'), ('running', 'timeout'),
      ('failed', 'pending'), ('timeout', 'pending'),
      ('failed', 'dead'), ('timeout', 'dead'),
      ('pending', 'cancelled'), ('running', 'cancelled'),
      ('pending', 'skipped'),
      -- operator retry of a finished task re-opens it (issue: retry a failed/dead task)
      ('dead', 'pending'), ('skipped', 'pending'), ('cancelled', 'pending')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'invalid task transition % -> %', OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER tasks_valid_transition BEFORE UPDATE OF status ON tasks
  FOR EACH ROW EXECUTE FUNCTION tasks_valid_transition();

-- ---------------------------------------------------------------- workers, alarms, stats
CREATE TABLE worker_nodes (
  node_id            text PRIMARY KEY,
  name               text NOT NULL,
  host               text NOT NULL,
  pid                integer NOT NULL,
  "group"            text NOT NULL DEFAULT 'default',
  labels             jsonb NOT NULL DEFAULT '{}',
  handlers           text[] NOT NULL DEFAULT '{}',
  status             node_status NOT NULL DEFAULT 'online',
  last_heartbeat_at  timestamptz(3) NOT NULL DEFAULT now(),
  running_tasks      integer NOT NULL DEFAULT 0,
  cpu_percent        double precision,
  memory_mb          double precision,
  load_1             double precision,
  version            text NOT NULL DEFAULT '',
  started_at         timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX worker_nodes_status_idx ON worker_nodes (status, last_heartbeat_at);

CREATE TABLE alarms (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id           text,
  run_id           text,
  type             alarm_type NOT NULL,
  level            text NOT NULL DEFAULT 'error',
  channel          alarm_channel NOT NULL,
  target           text NOT NULL DEFAULT '',
  content          jsonb NOT NULL DEFAULT '{}',
  status           alarm_status NOT NULL DEFAULT 'pending',
  count            integer NOT NULL DEFAULT 1,
  attempts         integer NOT NULL DEFAULT 0,
  next_attempt_at  timestamptz(3) NOT NULL DEFAULT now(),
  sent_at          timestamptz(3),
  error            text,
  created_at       timestamptz(3) NOT NULL DEFAULT now(),
  updated_at       timestamptz(3) NOT NULL DEFAULT now(),
  CONSTRAINT alarms_count_positive CHECK (count >= 1 AND attempts >= 0)
);
CREATE INDEX alarms_pending_idx ON alarms (next_attempt_at) WHERE status = 'pending';
CREATE INDEX alarms_job_idx ON alarms (job_id, type, created_at DESC);

CREATE TABLE handler_stats_daily (
  stat_date          date NOT NULL,
  handler            text NOT NULL,
  success            integer NOT NULL DEFAULT 0,
  failure            integer NOT NULL DEFAULT 0,
  timeout            integer NOT NULL DEFAULT 0,
  dead_letter        integer NOT NULL DEFAULT 0,
  total_duration_ms  bigint NOT NULL DEFAULT 0,
  max_duration_ms    integer NOT NULL DEFAULT 0,
  total_lateness_ms  bigint NOT NULL DEFAULT 0,
  lateness_count     integer NOT NULL DEFAULT 0,
  duration_buckets   integer[] NOT NULL DEFAULT '{}',
  updated_at         timestamptz(3) NOT NULL DEFAULT now(),
  PRIMARY KEY (stat_date, handler)
);

CREATE TABLE idempotency_keys (
  key           text PRIMARY KEY,
  operation     text NOT NULL,
  resource_id   text,
  request_hash  text NOT NULL,
  status_code   integer NOT NULL,
  response      jsonb NOT NULL,
  created_by    text NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

-- ---------------------------------------------------------------- auth
CREATE TABLE users (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email          text NOT NULL UNIQUE,
  name           text NOT NULL DEFAULT '',
  password_hash  text NOT NULL,
  role           user_role NOT NULL DEFAULT 'viewer',
  disabled       boolean NOT NULL DEFAULT false,
  last_login_at  timestamptz(3),
  created_at     timestamptz(3) NOT NULL DEFAULT now(),
  updated_at     timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE sessions (
  id          text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  expires_at  timestamptz(3) NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX sessions_user_idx ON sessions (user_id);

CREATE TABLE api_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id       uuid REFERENCES users(id) ON DELETE CASCADE,
  name          text NOT NULL,
  token_hash    text NOT NULL UNIQUE,
  prefix        text NOT NULL,
  role          user_role NOT NULL,
  last_used_at  timestamptz(3),
  expires_at    timestamptz(3),
  revoked_at    timestamptz(3),
  created_at    timestamptz(3) NOT NULL DEFAULT now()
);
