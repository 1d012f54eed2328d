-- A worker that stopped cleanly (SIGTERM/SIGINT: it drained, then exited) is `stopped`, with
-- when (`stopped_at`) and the signal that asked for it (`stop_signal`, null when the embedding
-- code called stop() itself); `offline` keeps its one meaning: the reaper found the node's
-- heartbeat lost (a crash, kill -9, a machine gone), docs/operations.md "Stopped or offline".
-- Rows marked `offline` by a clean exit before this migration stay `offline`: nothing recorded
-- which exits were clean.
-- ADD VALUE runs inside the migration's transaction (PostgreSQL 12+); the value is first used
-- by later transactions only. AFTER 'offline': the workers list sorts by status, stopped last.
ALTER TYPE node_status ADD VALUE IF NOT EXISTS 'stopped' AFTER 'offline';
ALTER TABLE worker_nodes ADD COLUMN stopped_at timestamptz(3);
ALTER TABLE worker_nodes ADD COLUMN stop_signal text;
