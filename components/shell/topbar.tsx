'use client';

import { LogOut } from 'lucide-react';
import { Button } from '../ui/button';
import { Tag } from '../status-badge';
import { useUser } from '../role';
import { DisplayZoneMenu } from './display-zone-menu';
import { KeyboardShortcuts } from './shortcuts';
import { ThemeToggle } from '../theme-toggle';
import { MobileNav } from './mobile-nav';
import type { Theme } from '../theme';

/**
 * Top bar: on narrow screens the navigation menu (mobile-nav.tsx); shortcuts, display zone, theme (light / dark / system),
 * signed-in user, role and the Sign out button — below 640 px (Tailwind's `sm`) without the user's name and the button's word. `signOut` is the server
 * action from app/(console)/actions.ts (passed in so components/ stays free of app/ imports).
 */
export function Topbar({ signOut, theme = 'system' }: { signOut: () => Promise<void>; theme?: Theme }) {
  const user = useUser();
  return (
    <header className="flex h-12 shrink-0 items-center justify-end gap-2 border-b border-zinc-200 bg-white px-3 sm:gap-3 md:px-5">
      <div className="mr-auto md:hidden">
        <MobileNav />
      </div>
      <KeyboardShortcuts />
      <DisplayZoneMenu />
      <ThemeToggle initial={theme} />
      {user ? (
        <div className="flex items-center gap-2 text-[13px]">
          <span className="flex size-6 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold uppercase text-indigo-700" aria-hidden>
            {(user.name || '?').slice(0, 1)}
          </span>
          <span className="hidden text-zinc-700 sm:inline" data-testid="current-user">{user.name}</span>
          <Tag data-testid="current-role">{user.role}</Tag>
        </div>
      ) : null}
      <form action={signOut}>
        <Button type="submit" variant="ghost" size="sm" aria-label="Sign out" title="Sign out">
          <LogOut />
          <span className="hidden sm:inline">Sign out</span>
        </Button>
      </form>
    </header>
  );
}
