'use server';

import { revalidatePath } from 'next/cache';
import { redirect } from 'next/navigation';
import { requireActionActor, signOut } from '@/app/_lib/session';
import { toActionError, type ActionResult } from '@/app/_actions/result';
import { setDisplayTimeZone } from '@/lib/auth/display-time-zone';
import { getDb } from '@/lib/db';
import { DomainError } from '@/lib/errors';

/** Sign out: app/_lib/session `signOut` (lib/auth logout deletes the session row, the cookie is cleared), then /login. */
export async function signOutAction(): Promise<void> {
  await signOut();
  redirect('/login');
}

/**
 * Set the signed-in user's display time zone (an IANA name) or, with null, go back to the browser's zone:
 * lib/auth setDisplayTimeZone. Any role may change their own; API tokens have no console display.
 */
export async function setDisplayTimeZoneAction(zone: unknown): Promise<ActionResult<{ timeZone: string | null }>> {
  try {
    const actor = await requireActionActor('viewer');
    if (actor.kind !== 'user') throw new DomainError('forbidden', 'Only a signed-in user has a display time zone');
    if (zone !== null && typeof zone !== 'string') throw new DomainError('validation', 'Invalid time zone', { timeZone: 'Must be an IANA zone name or null' });
    const r = await setDisplayTimeZone(getDb(), actor.id, zone);
    revalidatePath('/', 'layout');
    return { ok: true, data: r };
  } catch (error) {
    return toActionError(error, 'Set display time zone');
  }
}
