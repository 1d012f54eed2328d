-- What a worker advertises about each handler it offers (docs/handlers.md): description,
-- the input JSON Schema, step defaults. Keyed by handler name; written once at registration.
ALTER TABLE worker_nodes ADD COLUMN handler_specs jsonb NOT NULL DEFAULT '{}'::jsonb;
