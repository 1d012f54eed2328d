-- What a worker advertises about each handler it offers (docs/handlers.md): description,
-- the input JSON Schema, step defaults. Keyed by handler name; written once at registration.
-- `json`, not `jsonb`: jsonb reorders object keys, and the order of a schema's properties is
-- the order of the fields in the console's payload form.
ALTER TABLE worker_nodes ADD COLUMN handler_specs json NOT NULL DEFAULT '{}'::json;
