-- Runs created by a backfill of past slots (docs/recovery.md). Not 'schedule': the
-- tick's exactly-once index (runs_schedule_fire_uniq) and its misfire records stay
-- the tick's own. A migration of its own: PostgreSQL refuses to use a new enum value
-- in the transaction that added it, and 20261201900001_recovery indexes on it.
ALTER TYPE run_trigger ADD VALUE IF NOT EXISTS 'backfill';
