-- Look-ahead firing (docs/on-time.md).
--
-- 1. A schedule run created ahead of its slot and cancelled before it started (its job was
--    paused, edited or deleted) must not keep the slot: after an edit the tick fires that slot
--    again with the new configuration. Cancelled runs therefore leave the exactly-once index;
--    every other schedule run (pending, running, final, skipped misfire records) stays in it.
DROP INDEX runs_schedule_fire_uniq;
CREATE UNIQUE INDEX runs_schedule_fire_uniq ON runs (job_id, scheduled_for)
  WHERE trigger = 'schedule' AND status <> 'cancelled';

-- 2. Tickers sleep until the next job enters their look-ahead window. A job that may now fire
--    earlier than any ticker planned for (created, resumed, restored, next_run_at moved earlier)
--    wakes them with NOTIFY tickflow_jobs, payload = its next_run_at in epoch milliseconds. The
--    tick itself only moves next_run_at later, so firing never notifies (a NOTIFY serialises
--    commits on the notify-queue lock). A lost notification costs at most the ticker's safety
--    interval (TICKFLOW_TICK_MS).
CREATE FUNCTION tickflow_jobs_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tickflow_jobs', floor(extract(epoch FROM NEW.next_run_at) * 1000)::bigint::text);
  RETURN NULL;
END
$$;

CREATE TRIGGER jobs_notify_insert AFTER INSERT ON jobs FOR EACH ROW
  WHEN (NEW.status = 'active' AND NEW.deleted_at IS NULL AND NEW.next_run_at IS NOT NULL)
  EXECUTE FUNCTION tickflow_jobs_notify();

CREATE TRIGGER jobs_notify_update AFTER UPDATE ON jobs FOR EACH ROW
  WHEN (NEW.status = 'active' AND NEW.deleted_at IS NULL AND NEW.next_run_at IS NOT NULL
        AND (OLD.next_run_at IS NULL OR NEW.next_run_at < OLD.next_run_at
             OR OLD.status <> 'active' OR OLD.deleted_at IS NOT NULL))
  EXECUTE FUNCTION tickflow_jobs_notify();
