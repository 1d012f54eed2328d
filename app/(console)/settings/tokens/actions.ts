'use server';

import { revalidatePath } from 'next/cache';
import { requireActionActor } from '@/app/_lib/session';
import { CreateTokenInput, IdParams } from '@/lib/api/schemas';
import { getDb } from '@/lib/db';
import { createApiToken, revokeApiToken, type ApiTokenView } from '@/lib/auth/tokens';
import { invalid, toActionError, type ActionResult } from '@/app/_actions/result';

/** Create an API token (admin): lib/auth createApiToken. The raw token is returned once and never stored. */
export async function createTokenAction(input: unknown): Promise<ActionResult<{ token: string; view: ApiTokenView }>> {
  try {
    const actor = await requireActionActor('admin');
    const p = CreateTokenInput.safeParse(input);
    if (!p.success) return invalid(p.error);
    const r = await createApiToken(getDb(), p.data, actor);
    revalidatePath('/settings/tokens');
    return { ok: true, data: r };
  } catch (error) {
    return toActionError(error, 'Create token');
  }
}

/** Revoke an API token (admin): lib/auth revokeApiToken. */
export async function revokeTokenAction(id: string): Promise<ActionResult<ApiTokenView>> {
  try {
    const actor = await requireActionActor('admin');
    const t = await revokeApiToken(getDb(), IdParams.parse({ id }).id, actor);
    revalidatePath('/settings/tokens');
    return { ok: true, data: t };
  } catch (error) {
    return toActionError(error, 'Revoke token');
  }
}
