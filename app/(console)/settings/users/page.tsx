import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { listUsers } from '@/lib/auth/users';
import { PageHeader } from '@/components/shell/page-header';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { UsersPanel } from '@/components/settings/users-panel';
import { createUserAction, deleteUserAction, resetPasswordAction, updateUserAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Users' };
export const dynamic = 'force-dynamic';

/** /settings/users (admin only): operator accounts, create with a role, change role, disable, reset a password, delete. */
export default consolePage(async function UsersPage() {
  const actor = await requireActor('viewer');
  if (actor.role !== 'admin') {
    return (
      <>
        <PageHeader title="Users" />
        <ReadOnlyNotice message="Only admins manage users." />
      </>
    );
  }
  const users = await listUsers(getDb(), actor);
  return (
    <>
      <PageHeader title="Users" description="Admins manage users and tokens; operators run and change jobs; viewers only look." />
      <UsersPanel users={users} selfId={actor.id} create={createUserAction} update={updateUserAction} remove={deleteUserAction} resetPassword={resetPasswordAction} />
    </>
  );
});
