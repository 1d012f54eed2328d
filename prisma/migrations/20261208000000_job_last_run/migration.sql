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
-- countOnJob): the run created at last_run_at. It is found through runs_job_idx (job_id,
-- scheduled_for DESC, id DESC) walked down from just after that instant (a run's slot is at most
-- the look-ahead before its creation), so an upgrade reads a few index entries per job instead of
-- sorting the whole history; only a job whose last run was a backfill (a slot in the past) or is
-- gone (retention: the console then shows the time without a status) walks further down its own runs.
ALTER TABLE jobs ADD COLUMN last_run_id uuid, ADD COLUMN last_run_scheduled_for timestamptz(3);

UPDATE jobs j SET last_run_id = r.id, last_run_scheduled_for = r.scheduled_for
  FROM jobs j2
  CROSS JOIN LATERAL (
    SELECT runs.id, runs.scheduled_for FROM runs
     WHERE runs.job_id = j2.id::text AND runs.scheduled_for <= j2.last_run_at + interval '1 hour'
       AND runs.created_at = j2.last_run_at AND runs.status <> 'skipped'
     ORDER BY runs.scheduled_for DESC, runs.id DESC
     LIMIT 1) r
 WHERE j.id = j2.id AND j2.last_run_at IS NOT NULL;

ALTER TABLE jobs DROP COLUMN last_run_status;
