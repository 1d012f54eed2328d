-- The versions, recovery history and silences lists page by a keyset cursor (lib/api/cursor.ts)
-- instead of stopping at a fixed count. Versions are read by the unique index (job_id, version)
-- backwards; the two other orders get an index that ends in the tie-breaker id, so a page after
-- (created_at, id) is one range of the index:
--   job_audit: (job_id, created_at DESC, id DESC) replaces (job_id, created_at DESC);
--   alarm_silences: (created_at DESC, id DESC), the whole history (?active=false); the silences in force
--   are still found by alarm_silences_active_idx.
DROP INDEX IF EXISTS job_audit_job_idx;
CREATE INDEX job_audit_job_idx ON job_audit (job_id, created_at DESC, id DESC);
CREATE INDEX alarm_silences_created_idx ON alarm_silences (created_at DESC, id DESC);
