-- ENGINE: a task its worker claimed and holds without having started it: claimed ahead of its
-- slot, or prefetched beyond the worker's free slots (docs/on-time.md "Prefetch"). The claim
-- sets it; the worker clears it, with the real start, before it calls the handler
-- (lib/engine/mark-held-tasks-started.ts). When the worker dies, the reaper hands a task
-- still held back to pending on the same attempt instead of failing an attempt that never
-- ran (lib/engine/reclaim-expired-leases.ts).
-- A constant default is stored in the catalog (PostgreSQL 11+): no partition is rewritten.
ALTER TABLE tasks ADD COLUMN held boolean NOT NULL DEFAULT false;
