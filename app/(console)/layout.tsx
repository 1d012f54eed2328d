import { redirect } from 'next/navigation';
import { getActor } from '@/app/_lib/session';
import { Sidebar } from '@/components/shell/sidebar';
import { Topbar } from '@/components/shell/topbar';
import { UserProvider } from '@/components/role';
import { signOutAction } from './actions';

export const dynamic = 'force-dynamic';

/**
 * Console shell for every signed-in page: sidebar, top bar, content. No session (or an
 * expired one) sends the browser to /login. Each page and action still checks the
 * role itself; this layout is navigation, not the security boundary.
 */
export default async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const actor = await getActor();
  if (!actor) redirect('/login');
  return (
    <UserProvider user={{ id: actor.id, name: actor.name, role: actor.role, kind: actor.kind }}>
      <div className="flex h-screen overflow-hidden">
        <Sidebar />
        <div className="flex min-w-0 flex-1 flex-col">
          <Topbar signOut={signOutAction} />
          <main className="min-h-0 flex-1 overflow-y-auto px-6 py-5">{children}</main>
        </div>
      </div>
    </UserProvider>
  );
}
