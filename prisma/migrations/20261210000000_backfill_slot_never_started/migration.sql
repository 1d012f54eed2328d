-- A backfill run cancelled before it started (started_at NULL: cancelled in its queue by an edit
-- of what the job runs, by a cover, or by hand) never ran, so it no longer holds its slot: a later
-- backfill may run that slot (docs/recovery.md "Exactly once per slot", the rule
-- lib/engine/sql/covered-slots.ts holdsSlotSql). Re-opening such a run while its slot has another
-- run is refused (lib/engine/sql/reopen-tasks.ts); this index is the backstop against two backfill
-- runs of one slot that ran or may run. Dropping the partitioned index drops it on every partition;
-- the new one is created on each of them (and on partitions created later).
DROP INDEX IF EXISTS runs_backfill_slot_uniq;
CREATE UNIQUE INDEX runs_backfill_slot_uniq ON runs (job_id, scheduled_for)
  WHERE trigger = 'backfill' AND (status <> 'cancelled' OR started_at IS NOT NULL);
