-- Least privilege (docs/security.md).
--
-- 1. API tokens: every token has an owner user and a scope (read / operate / admin)
--    instead of a free-standing role. A token acts with its scope's role only while
--    its owner is enabled and still holds that role (lib/auth/tokens.ts).
--    Tokens without an owner (made with another token or the bootstrap token) cannot
--    be attributed to anyone: they are deleted.
CREATE TYPE token_scope AS ENUM ('read', 'operate', 'admin');
DELETE FROM api_tokens WHERE user_id IS NULL;
ALTER TABLE api_tokens ADD COLUMN scope token_scope;
UPDATE api_tokens
   SET scope = CASE role WHEN 'viewer' THEN 'read' WHEN 'operator' THEN 'operate' ELSE 'admin' END::token_scope;
ALTER TABLE api_tokens ALTER COLUMN scope SET NOT NULL;
ALTER TABLE api_tokens ALTER COLUMN user_id SET NOT NULL;
ALTER TABLE api_tokens DROP COLUMN role;

-- 2. Failed console logins, kept in the database so the limit holds across several
--    console processes (lib/auth/rate-limit.ts): one row per failure, keyed by the
--    account and the client address the console trusted (TICKFLOW_TRUSTED_PROXIES).
CREATE TABLE login_failures (
  id         bigserial PRIMARY KEY,
  email      text NOT NULL,
  client     text NOT NULL,
  failed_at  timestamptz(3) NOT NULL
);
CREATE INDEX login_failures_email_client_idx ON login_failures (email, client, failed_at);
CREATE INDEX login_failures_client_idx ON login_failures (client, failed_at);
CREATE INDEX login_failures_failed_at_idx ON login_failures (failed_at);
