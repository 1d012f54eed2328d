-- A worker hands back a task it claimed but never started (lib/engine/release-tasks.ts): one
-- claimed ahead and held until its start, or prefetched and waiting for a slot, when the worker
-- stops. The task goes running -> pending on the same attempt: no handler ran, so no attempt is
-- counted, and another worker claims it (docs/on-time.md "Prefetch").
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
      -- a claimed task handed back unstarted by its worker
      ('running', 'pending'),
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
