'use server';

import { redirect } from 'next/navigation';
import { signOut } from '@/app/_lib/session';

/** Sign out: app/_lib/session `signOut` (lib/auth logout deletes the session row, the cookie is cleared), then /login. */
export async function signOutAction(): Promise<void> {
  await signOut();
  redirect('/login');
}
