'use server';

import { CreateTokenInput, IdParams } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { createApiToken, revokeApiToken } from '@/lib/auth/tokens';
import { defineAction } from '@/app/_actions/define-action';

/** Create an API token owned by the signed-in admin (lib/auth createApiToken). The raw token is returned once and never stored. */
export const createTokenAction = defineAction(
  'tokens.create',
  'Create token',
  ({ db, actor }, input: unknown) => createApiToken(db, parseOrThrow(CreateTokenInput, input), actor),
  { revalidate: () => ['/settings/tokens'] },
);

/** Revoke an API token: lib/auth revokeApiToken. */
export const revokeTokenAction = defineAction('tokens.revoke', 'Revoke token', ({ db, actor }, id: string) => revokeApiToken(db, IdParams.parse({ id }).id, actor), {
  revalidate: () => ['/settings/tokens'],
});
