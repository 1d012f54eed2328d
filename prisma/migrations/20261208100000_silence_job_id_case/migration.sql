-- A silence's job is matched as text against alarms.job_id, which is always written in lower
-- case (from jobs.id). A silence created with the id spelled in upper case was accepted, shown as
-- active and matched nothing; ids are now read in lower case where they enter (lib/api/ids.ts
-- canonicalId), and the silences saved before are put in the same spelling here.
UPDATE alarm_silences SET job_id = lower(job_id) WHERE job_id <> lower(job_id);
