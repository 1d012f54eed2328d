'use server';

import { redirect } from 'next/navigation';
import { signOut } from '@/app/_lib/session';
import { outageOr } from '@/app/_lib/page-error';
import { z } from 'zod';
import { actionArgs, defineAction, publicAction } from '@/app/_actions/define-action';
import { setDisplayTimeZone } from '@/lib/auth/display-time-zone';
import { listJobOptions } from '@/lib/jobs/job-options';
import { DomainError } from '@/lib/errors';

/**
 * Sign out: app/_lib/session `signOut` (lib/auth logout deletes the session row, the cookie is cleared), then /login.
 * While the database is away the session cannot be ended: the error boundary says so (outageOr), and the user stays signed in.
 */
export const signOutAction = publicAction('session.signOut', actionArgs(['form', z.unknown()]) /* a <form action>'s data, unused */, async (_form?: unknown): Promise<void> => {
  try {
    await signOut();
  } catch (e) {
    throw outageOr(e);
  }
  redirect('/login');
}, () => {
  // a call with more arguments than a form's data: refused, nothing done (the session stays)
});

/**
 * Set the signed-in user's display time zone (an IANA name) or, with null, go back to the browser's zone:
 * lib/auth setDisplayTimeZone. Any role may change their own; API tokens have no console display.
 */
export const setDisplayTimeZoneAction = defineAction(
  'session.displayTimeZone',
  'Set display time zone',
  actionArgs(['timeZone', z.string({ error: 'Must be an IANA zone name or null' }).max(200).nullable()]),
  async ({ db, actor }, zone: string | null) => {
    if (actor.kind !== 'user') throw new DomainError('forbidden', 'Only a signed-in user has a display time zone');
    return setDisplayTimeZone(db, actor.id, zone);
  },
  { revalidate: () => [['/', 'layout'] as const] },
);

/**
 * The job pickers' search (runs, alarms and stats filters; components/filter-bar.tsx ComboFilter): live jobs
 * whose key or name contains `text`, at most lib/jobs JOB_OPTIONS_LIMIT, by lib/jobs listJobOptions.
 */
export const searchJobOptionsAction = defineAction('jobs.list', 'Search jobs', actionArgs(['q', z.string({ error: 'Must be a text' })]), async ({ db, actor }, text: string) =>
  listJobOptions(db, actor, { q: text }),
);
