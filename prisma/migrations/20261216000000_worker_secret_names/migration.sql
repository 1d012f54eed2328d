-- The names (never the values) of the secrets a worker holds for task settings
-- (docs/security.md "Worker secrets"), advertised like its handlers: the workers page shows
-- which worker can run a step that names a secret.
ALTER TABLE worker_nodes ADD COLUMN secret_names text[] NOT NULL DEFAULT '{}';
