-- ENGINE: open tasks of a run, by status and parent counter (lib/engine/sql/finalise-run.ts).
-- After every completion the engine asks "does this run still have an open task, and
-- is any of them running or ready?". Without this index those probes scan every task
-- of the run (tasks_run_idx), which makes a 10,000-task run quadratic; with it each
-- probe is an index range lookup. Partial: final tasks drop out of it.
CREATE INDEX tasks_run_open_idx ON tasks (run_id, status, pending_parents)
  WHERE status IN ('pending', 'running', 'failed', 'timeout');
