'use client';

import { LogOut } from 'lucide-react';
import { Button } from '../ui/button';
import { Tag } from '../status-badge';
import { useUser } from '../role';
import { DisplayZoneMenu } from './display-zone-menu';
import { KeyboardShortcuts } from './shortcuts';
import { ThemeToggle } from '../theme-toggle';
import type { Theme } from '../theme';

/**
 * Top bar: shortcuts, display zone, theme (light / dark / system), signed-in user, role and the Sign out button. `signOut` is the server
 * action from app/(console)/actions.ts (passed in so components/ stays free of app/ imports).
 */
export function Topbar({ signOut, theme = 'system' }: { signOut: () => Promise<void>; theme?: Theme }) {
  const user = useUser();
  return (
    <header className="flex h-12 shrink-0 items-center justify-end gap-3 border-b border-zinc-200 bg-white px-5">
      <KeyboardShortcuts />
      <DisplayZoneMenu />
      <ThemeToggle initial={theme} />
      {user ? (
        <div className="flex items-center gap-2 text-[13px]">
          <span className="flex size-6 items-center justify-center rounded-full bg-indigo-100 text-xs font-semibold uppercase text-indigo-700" aria-hidden>
            {(user.name || '?').slice(0, 1)}
          </span>
          <span className="text-zinc-700" data-testid="current-user">{user.name}</span>
          <Tag data-testid="current-role">{user.role}</Tag>
        </div>
      ) : null}
      <form action={signOut}>
        <Button type="submit" variant="ghost" size="sm">
          <LogOut />
          Sign out
        </Button>
      </form>
    </header>
  );
}
