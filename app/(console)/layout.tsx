import { cookies } from 'next/headers';
import { getActor, redirectToLogin } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { getDisplayTimeZone } from '@/lib/auth/display-time-zone';
import { isValidTimeZone } from '@/lib/schedule/timezone';
import { BROWSER_ZONE_COOKIE, DisplayZoneProvider } from '@/components/display-zone';
import { Sidebar } from '@/components/shell/sidebar';
import { Topbar } from '@/components/shell/topbar';
import { ScrollToTop } from '@/components/shell/scroll-to-top';
import { parseTheme, THEME_COOKIE } from '@/components/theme';
import { UserProvider } from '@/components/role';
import { setDisplayTimeZoneAction, signOutAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const dynamic = 'force-dynamic';

/**
 * Console shell for every signed-in page: sidebar, top bar, content. No session (or an
 * expired one) sends the browser to /login. Each page and action still checks the
 * role itself; this layout is navigation, not the security boundary.
 */
export default consolePage(async function ConsoleLayout({ children }: { children: React.ReactNode }) {
  const actor = await getActor();
  if (!actor) return redirectToLogin();
  // Times are written in the user's display zone: their choice, else the zone their browser reported earlier.
  const preference = actor.kind === 'user' ? await getDisplayTimeZone(getDb(), actor.id) : null;
  const cookieZone = (await cookies()).get(BROWSER_ZONE_COOKIE)?.value ?? null;
  const browserZone = cookieZone && isValidTimeZone(cookieZone) ? cookieZone : null;
  return (
    <UserProvider user={{ id: actor.id, name: actor.name, role: actor.role, kind: actor.kind }}>
      <DisplayZoneProvider preference={preference} browserZone={browserZone} save={setDisplayTimeZoneAction}>
      <div className="flex h-screen overflow-hidden">
        {/* the first stop of Tab: past the sidebar's ten links and the top bar straight to the page (WCAG 2.4.1);
            hidden until focused */}
        <a
          href="#main"
          className="sr-only z-50 rounded-md bg-white text-[13px] font-medium text-indigo-700 shadow-md ring-2 ring-indigo-500 focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:px-3 focus:py-2"
          data-testid="skip-to-content"
        >
          Skip to content
        </a>
        <Sidebar />
        <div className="flex min-w-0 flex-1 flex-col">
          <Topbar signOut={signOutAction} theme={parseTheme((await cookies()).get(THEME_COOKIE)?.value)} />
          {/* relative: the scroll area is the containing block of absolutely placed text (screen-reader-only
              reasons), which would otherwise lengthen and widen the page itself beyond the screen */}
          <main id="main" className="relative min-h-0 flex-1 overflow-y-auto px-3 py-4 md:px-6 md:py-5">
            <ScrollToTop container="main" />
            {children}
          </main>
        </div>
      </div>
      </DisplayZoneProvider>
    </UserProvider>
  );
});
