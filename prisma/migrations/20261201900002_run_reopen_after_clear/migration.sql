-- An operator's "clear" (lib/engine/clear-task.ts, docs/recovery.md) re-runs a task and
-- everything downstream of it in the same run, also in a run that ended `success`:
-- the run goes back to pending/running like the re-open of an operator's task retry.
-- Same table as lib/engine/states.ts RUN_TRANSITIONS (tests/integration/engine-states.test.ts).
CREATE OR REPLACE FUNCTION runs_valid_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = OLD.status THEN
    RETURN NEW;
  END IF;
  IF (OLD.status, NEW.status) IN (
      ('pending'::run_status, 'running'::run_status),
      ('pending', 'success'), ('pending', 'failed'), ('pending', 'timeout'), ('pending', 'cancelled'),
      ('running', 'success'), ('running', 'failed'), ('running', 'timeout'), ('running', 'cancelled'),
      -- an operator's task retry or clear re-opens a finished run
      ('failed', 'pending'), ('failed', 'running'), ('timeout', 'pending'), ('timeout', 'running'),
      ('cancelled', 'pending'), ('cancelled', 'running'),
      ('success', 'pending'), ('success', 'running')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'invalid run transition % -> %', OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END;
$$;
