-- A freed resource key also wakes the workers for the task that held it, when that task waits on
-- the key again: a cancelled attempt keeps its key held until its handler returns
-- (20261212000000_resource_key_freed_notify), and an operator's retry of that task in the meantime
-- puts it back to pending with its own NOTIFY, sent while the key was still held; the claim then
-- skipped it, and the notification of the key's release left it out, so it waited for a safety poll.
CREATE OR REPLACE FUNCTION running_resources_freed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  waiting_since timestamptz;
BEGIN
  SELECT min(t.schedule_at) INTO waiting_since
    FROM tasks t
   WHERE t.resource_key = OLD.resource_key AND t.status = 'pending' AND t.pending_parents = 0;
  IF waiting_since IS NOT NULL THEN
    PERFORM pg_notify('tickflow_tasks', floor(extract(epoch FROM waiting_since) * 1000)::bigint::text);
  END IF;
  RETURN NULL;
END;
$$;
