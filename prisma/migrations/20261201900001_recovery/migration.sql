-- Recovery actions (docs/recovery.md): backfill, mark success, clear.

-- Exactly one backfill run per (job, slot): a second backfill of the same range
-- cannot create a duplicate even when two operators confirm at once.
CREATE UNIQUE INDEX runs_backfill_slot_uniq ON runs (job_id, scheduled_for) WHERE trigger = 'backfill';

-- Operator transitions added to lib/engine/states.ts TASK_TRANSITIONS:
--   dead | failed | timeout -> success  (mark success)
--   success -> pending                  (clear: re-run a task and its downstream)
CREATE OR REPLACE FUNCTION tasks_valid_transition() RETURNS trigger LANGUAGE plpgsql AS $$
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
      -- operator retry of a finished task re-opens it
      ('dead', 'pending'), ('skipped', 'pending'), ('cancelled', 'pending'),
      -- operator mark success of a failed task
      ('dead', 'success'), ('failed', 'success'), ('timeout', 'success'),
      -- operator clear of a succeeded task (it runs again)
      ('success', 'pending')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'invalid task transition % -> %', OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END;
$$;

-- The job's recovery history: one row per backfill, mark success or clear, with who and why.
-- Kept apart from job_versions, whose rows are configuration versions (a recovery changes
-- no configuration and must not bump jobs.version, which editors use for optimistic locking).
CREATE TABLE job_audit (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id      uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
  action      text NOT NULL CHECK (action IN ('backfill', 'mark_success', 'clear')),
  run_id      uuid,
  task_id     uuid,
  actor       text NOT NULL,
  reason      text,
  detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);
CREATE INDEX job_audit_job_idx ON job_audit (job_id, created_at DESC);
