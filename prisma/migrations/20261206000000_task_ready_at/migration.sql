-- ENGINE / STATS: the instant a downstream step became ready for its first attempt: its last
-- hard or soft parent settled, or an operator re-opened it (lib/engine/sql/stats-outcome.ts
-- readyAtOnReleaseSql). NULL for a step without parents, which is ready from its run's slot.
-- Start lateness is measured from the later of the slot and this instant (latenessFromSql),
-- so a step that waited for a slow parent is not booked as late. Set once, before the first
-- attempt starts, and never changed after it: the stats rebuild reads it back.
-- Nullable without a default: adding it rewrites no partition.
ALTER TABLE tasks ADD COLUMN ready_at timestamptz(3);
