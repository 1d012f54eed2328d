-- ENGINE: the run and job state machines (lib/engine/states.ts RUN_TRANSITIONS and
-- JOB_TRANSITIONS), enforced by the database as the task state machine is
-- (tasks_valid_transition). tests/integration/engine-states.test.ts checks that the
-- tables and these triggers agree on every pair.
CREATE FUNCTION runs_valid_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = OLD.status THEN
    RETURN NEW;
  END IF;
  IF (OLD.status, NEW.status) IN (
      ('pending'::run_status, 'running'::run_status),
      ('pending', 'success'), ('pending', 'failed'), ('pending', 'timeout'), ('pending', 'cancelled'),
      ('running', 'success'), ('running', 'failed'), ('running', 'timeout'), ('running', 'cancelled'),
      -- an operator's task retry re-opens a finished run
      ('failed', 'pending'), ('failed', 'running'), ('timeout', 'pending'), ('timeout', 'running'),
      ('cancelled', 'pending'), ('cancelled', 'running')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'invalid run transition % -> %', OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER runs_valid_transition BEFORE UPDATE OF status ON runs
  FOR EACH ROW EXECUTE FUNCTION runs_valid_transition();

CREATE FUNCTION jobs_valid_transition() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.status = OLD.status THEN
    RETURN NEW;
  END IF;
  IF (OLD.status, NEW.status) IN (
      ('active'::job_status, 'paused'::job_status), ('dead_letter', 'paused'),
      ('paused', 'active'), ('dead_letter', 'active'),
      ('active', 'dead_letter')) THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'invalid job transition % -> %', OLD.status, NEW.status
    USING ERRCODE = 'check_violation';
END;
$$;
CREATE TRIGGER jobs_valid_transition BEFORE UPDATE OF status ON jobs
  FOR EACH ROW EXECUTE FUNCTION jobs_valid_transition();
