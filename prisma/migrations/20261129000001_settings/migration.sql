-- Instance-wide settings and one-time markers (e.g. when demo data was seeded,
-- so purging the demo jobs does not bring them back on the next start).
CREATE TABLE settings (
  key         text PRIMARY KEY,
  value       jsonb NOT NULL,
  updated_at  timestamptz(3) NOT NULL DEFAULT now()
);
