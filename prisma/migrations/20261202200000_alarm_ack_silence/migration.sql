-- Alarms can be acknowledged (who, when, an optional note) and silenced (docs/design.md §3 `alarms`,
-- `alarm_silences`). A silence covers one job, one alarm type, or one job's alarms of one type (an
-- alarm rule) until an instant; the dispatcher marks a matching due alarm `silenced` instead of
-- delivering it, so the alarm is still recorded and shown. Ending a silence early records who did it.
-- ADD VALUE runs inside the migration's transaction (PostgreSQL 12+); the value is first used
-- by later transactions only.
ALTER TYPE alarm_status ADD VALUE IF NOT EXISTS 'silenced';

CREATE TABLE alarm_silences (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  job_id      text,
  type        alarm_type,
  until       timestamptz(3) NOT NULL,
  note        text,
  created_by  text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  ended_at    timestamptz(3),
  ended_by    text,
  CONSTRAINT alarm_silences_scope CHECK (job_id IS NOT NULL OR type IS NOT NULL),
  CONSTRAINT alarm_silences_window CHECK (until > created_at),
  CONSTRAINT alarm_silences_end CHECK ((ended_at IS NULL) = (ended_by IS NULL)),
  CONSTRAINT alarm_silences_note_len CHECK (note IS NULL OR length(note) <= 1000)
);
-- the dispatcher's lookup: silences not ended early, by how long they last
CREATE INDEX alarm_silences_active_idx ON alarm_silences (until) WHERE ended_at IS NULL;

ALTER TABLE alarms
  ADD COLUMN acknowledged_at timestamptz(3),
  ADD COLUMN acknowledged_by text,
  ADD COLUMN ack_note text,
  ADD COLUMN silence_id uuid REFERENCES alarm_silences(id) ON DELETE SET NULL;
ALTER TABLE alarms ADD CONSTRAINT alarms_ack_complete CHECK ((acknowledged_at IS NULL) = (acknowledged_by IS NULL));
ALTER TABLE alarms ADD CONSTRAINT alarms_ack_note_len CHECK (ack_note IS NULL OR length(ack_note) <= 1000);
