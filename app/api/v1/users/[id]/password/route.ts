import { rest, RestResponse } from '@/app/_lib/rest';
import { IdParams, ResetPasswordInput } from '@/lib/api/schemas';
import { resetUserPassword } from '@/lib/auth/users';
import { isUuid } from '@/lib/api/ids';
import { DomainError } from '@/lib/errors';

export const dynamic = 'force-dynamic';

/**
 * POST /api/v1/users/:id/password { password? } (admin) -> { user, password? }: sets the given
 * password or generates one (returned once); the user's sessions end. A generated password's
 * answer has no Idempotency-Key replay (a stored response would keep it in clear for a day): a
 * repeat of the key is a 409 saying the reset was done, not a second reset. A given password's
 * answer (`{ user }`, no secret) is stored and replayed like any other.
 */
export const POST = rest({
  operation: 'users.resetPassword', params: IdParams, resource: 'user', body: ResetPasswordInput,
  idempotency: { secretIn: (answer) => typeof (answer as { password?: unknown } | null)?.password === 'string' },
}, async ({ db, params, body, actor }) => {
  if (!isUuid(params.id)) throw new DomainError('not_found', `User ${params.id} not found`);
  // the answer holds the user as `user`, with no top-level `id` for rest() to keep with the key: named here, so
  // that the 409 to a repeat of a generated password's key names the user whose password was reset
  return new RestResponse(200, await resetUserPassword(db, params.id, body, actor), {}, params.id);
});
