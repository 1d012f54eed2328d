import { rest } from '@/app/_lib/rest';
import { EmptyInput, IdParams } from '@/lib/api/schemas';
import { revokeApiToken } from '@/lib/auth/tokens';

export const dynamic = 'force-dynamic';

/** DELETE /api/v1/tokens/:id (admin; no body, or `{}`: any field is a 400) -> token (revoked) */
export const DELETE = rest({ operation: 'tokens.revoke', params: IdParams, resource: 'token', body: EmptyInput }, ({ db, params, actor, now }) =>
  revokeApiToken(db, params.id, actor, now),
);
