-- A job's "last run" is one run (docs/design.md §3, jobs). last_run_id and last_run_scheduled_for
-- name the run created last, the run last_run_at is the creation instant of, and are written in
-- the same UPDATE as last_run_at (lib/engine/sql/insert-runs.ts, insert-run.ts). The console and
-- the REST API read that run's own status and creation time by its primary key (id,
-- scheduled_for), one partition each (lib/engine/sql/last-runs.ts), so a status is never shown
-- beside another run's time.
--
-- last_run_status goes: written when a run ended, it described the run that ended last, which
-- while a newer run is pending or running, or when an older and slower run ends after a newer
-- one was created, is not the run last_run_at describes.
--
-- Existing jobs get the run they counted last (skipped records never counted: insert-runs.ts
-- countOnJob); the one scan of runs this takes happens once, here.
ALTER TABLE jobs ADD COLUMN last_run_id uuid, ADD COLUMN last_run_scheduled_for timestamptz(3);

UPDATE jobs j SET last_run_id = r.id, last_run_scheduled_for = r.scheduled_for
  FROM (SELECT DISTINCT ON (job_id) job_id, id, scheduled_for
          FROM runs WHERE status <> 'skipped'
         ORDER BY job_id, created_at DESC, scheduled_for DESC, id DESC) r
 WHERE j.id::text = r.job_id AND j.last_run_at IS NOT NULL;

ALTER TABLE jobs DROP COLUMN last_run_status;
