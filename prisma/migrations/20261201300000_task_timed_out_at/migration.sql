-- ENGINE: an attempt past its timeout whose handler has not returned yet ("timed out,
-- still running", docs/engine.md "Timeouts"). The task stays `running` — holding its
-- worker slot, its resource key and its job's serial turn — until the handler returns;
-- the worker then records the attempt as `timeout`. Cleared by the next claim.
ALTER TABLE tasks ADD COLUMN timed_out_at timestamptz(3);
