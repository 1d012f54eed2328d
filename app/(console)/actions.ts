'use server';

import { redirect } from 'next/navigation';
import { signOut } from '@/app/_lib/session';
import { publicAction } from '@/app/_actions/define-action';

/** Sign out: app/_lib/session `signOut` (lib/auth logout deletes the session row, the cookie is cleared), then /login. */
export const signOutAction = publicAction('session.signOut', async (): Promise<void> => {
  await signOut();
  redirect('/login');
});
