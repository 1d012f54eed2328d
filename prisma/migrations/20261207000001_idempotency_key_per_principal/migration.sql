-- An Idempotency-Key belongs to the principal that sent it (`created_by`: a user or an API
-- token, lib/api/idempotency.ts), as in Stripe's API where keys are per account: the same key
-- from another principal is an independent request. One namespace for everyone would tell a
-- caller that someone else had used a key, and let a guessed key block another user's request.
-- Rows stored so far have distinct keys, so they stay distinct under (created_by, key).
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (created_by, key);
