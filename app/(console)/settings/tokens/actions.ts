'use server';

import { CreateTokenInput, IdParams } from '@/lib/api/schemas';
import { createApiToken, revokeApiToken } from '@/lib/auth/tokens';
import type { z } from 'zod';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

/** Create an API token owned by the signed-in admin (lib/auth createApiToken). The raw token is returned once and never stored. */
export const createTokenAction = defineAction(
  'tokens.create',
  'Create token',
  actionArgs(['input', CreateTokenInput]),
  ({ db, actor }, input: unknown) => createApiToken(db, input as z.output<typeof CreateTokenInput>, actor),
  { revalidate: () => ['/settings/tokens'] },
);

/** Revoke an API token: lib/auth revokeApiToken. */
export const revokeTokenAction = defineAction('tokens.revoke', 'Revoke token', actionArgs(['id', IdArg]), ({ db, actor }, id: string) => revokeApiToken(db, IdParams.parse({ id }).id, actor), {
  revalidate: () => ['/settings/tokens'],
});
