import { rest } from '@/app/_lib/rest';
import { CreateTokenInput } from '@/lib/api/schemas';
import { createApiToken, listApiTokens } from '@/lib/auth/tokens';

export const dynamic = 'force-dynamic';

/** GET /api/v1/tokens (admin) -> { items } (no secrets) */
export const GET = rest({ operation: 'tokens.list' }, async ({ db, actor }) => ({ items: await listApiTokens(db, actor) }));

/** POST /api/v1/tokens (admin) { name, scope, expiresAt?, ownerId? } -> 201 (owner: ownerId, else the caller or the calling token's owner; docs/security.md "Tokens") { token (shown once), ...view }. With an Idempotency-Key, a repeat is a 409 naming the token made, never a second token: the response holds a secret that is not stored. */
export const POST = rest({ operation: 'tokens.create', body: CreateTokenInput, status: 201, idempotency: 'no-replay' }, async ({ db, body, actor, now }) => {
  const r = await createApiToken(db, body, actor, now);
  return { ...r.view, token: r.token };
});
