-- Resource keys: a cancelled attempt keeps its key until its worker says its work has stopped,
-- and a freed key wakes the workers when another ready task waits on it (docs/engine.md
-- "Resource keys").
--
-- 1. Held after a cancel. Cancelling a run moves its running tasks to `cancelled` at once, and
--    the trigger freed their keys in that statement; but the attempt's work goes on until its
--    worker hears of the cancel and the handler returns: a shell program gets SIGTERM and up to
--    its kill grace (5 s by default, up to 10 minutes) before SIGKILL. A task of the same key
--    claimed meanwhile ran beside it. Now a running -> cancelled move keeps the key's row,
--    marked with the worker (held_by) and the attempt's lease end (held_until). The worker
--    deletes it when the attempt's handler has returned (lib/engine/held-resource-keys.ts), its
--    heartbeat moves held_until on while the handler runs, and the reaper deletes a row whose
--    held_until has passed (a worker that died: its programs are killed by then, docs/engine.md
--    "Work outside the worker process"). Every other way out of `running` (completion, retry,
--    reclaim, hand-back) frees the key as before.
-- 2. Freed wakes. A ready task whose key is held is left out of every claim. When the key was
--    freed nothing told the other workers: a worker other than the holder's found the waiting
--    task only at its next safety poll, seconds later. Deleting a running_resources row now
--    sends NOTIFY tickflow_tasks when a ready task waits on its key, with the earliest such
--    task's schedule_at (epoch milliseconds, UTC) as payload, as a retry's NOTIFY does
--    (lib/engine/notify.ts). Only deletions somebody waits for notify, so the notify-queue lock a
--    NOTIFY takes at commit stays off every other commit. The probe reads
--    tasks_resource_waiting_idx, which holds only ready tasks that have a key.
ALTER TABLE running_resources
  ADD COLUMN held_by text,
  ADD COLUMN held_until timestamptz(3);

CREATE INDEX tasks_resource_waiting_idx ON tasks (resource_key, schedule_at)
  WHERE status = 'pending' AND pending_parents = 0 AND resource_key IS NOT NULL;

CREATE OR REPLACE FUNCTION tasks_running_resource() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.status = 'running' AND OLD.resource_key IS NOT NULL THEN
    IF TG_OP = 'UPDATE' AND NEW.status = 'cancelled' AND OLD.locked_by IS NOT NULL THEN
      UPDATE running_resources SET held_by = OLD.locked_by, held_until = coalesce(OLD.lease_until, NEW.updated_at)
       WHERE resource_key = OLD.resource_key AND task_id = OLD.id;
    ELSE
      DELETE FROM running_resources WHERE resource_key = OLD.resource_key AND task_id = OLD.id;
    END IF;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.status = 'running' AND NEW.resource_key IS NOT NULL THEN
    INSERT INTO running_resources (resource_key, task_id, scheduled_for)
    VALUES (NEW.resource_key, NEW.id, NEW.scheduled_for);
  END IF;
  RETURN NULL;
END;
$$;

CREATE FUNCTION running_resources_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  waiting_since timestamptz;
BEGIN
  -- the freeing task itself, put back to pending by a retry, sends its own NOTIFY
  SELECT min(t.schedule_at) INTO waiting_since
    FROM tasks t
   WHERE t.resource_key = OLD.resource_key AND t.status = 'pending' AND t.pending_parents = 0
     AND t.id <> OLD.task_id;
  IF waiting_since IS NOT NULL THEN
    PERFORM pg_notify('tickflow_tasks', floor(extract(epoch FROM waiting_since) * 1000)::bigint::text);
  END IF;
  RETURN NULL;
END;
$$;
CREATE TRIGGER running_resources_freed AFTER DELETE ON running_resources
  FOR EACH ROW EXECUTE FUNCTION running_resources_freed();
