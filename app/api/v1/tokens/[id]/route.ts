import { rest } from '@/app/_lib/rest';
import { IdParams } from '@/lib/api/schemas';
import { revokeApiToken } from '@/lib/auth/tokens';

export const dynamic = 'force-dynamic';

/** DELETE /api/v1/tokens/:id (admin) -> token (revoked) */
export const DELETE = rest({ operation: 'tokens.revoke', params: IdParams }, ({ db, params, actor, now }) =>
  revokeApiToken(db, params.id, actor, now),
);
