-- ENGINE: a task its worker claimed to hold before starting it: claimed ahead of its slot, or
-- prefetched beyond the worker's free slots (docs/on-time.md "Prefetch"). The claim sets it;
-- the worker clears it, with the real start, once the attempt has lasted a moment
-- (lib/engine/mark-held-tasks-started.ts, and the heartbeat); a completion clears it too. When
-- the worker dies, the reaper hands a task still held back to pending on the same attempt
-- instead of failing an attempt that most likely never ran, a bounded number of times
-- (lib/engine/reclaim-expired-leases.ts, release-tasks.ts).
-- A constant default is stored in the catalog (PostgreSQL 11+): no partition is rewritten.
ALTER TABLE tasks ADD COLUMN held boolean NOT NULL DEFAULT false;
