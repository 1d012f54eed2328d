'use client';

import { Link } from '@/components/ui/link';
import { usePathname } from 'next/navigation';
import { Activity, BarChart3, BellRing, Briefcase, CalendarClock, KeyRound, LayoutDashboard, Recycle, ScrollText, Server, Users } from 'lucide-react';
import { cn } from '../ui/cn';
import { Logo } from './logo';
import { useCan } from '../role';

const MAIN = [
  { href: '/', label: 'Overview', icon: LayoutDashboard },
  { href: '/jobs', label: 'Jobs', icon: Briefcase },
  { href: '/runs', label: 'Runs', icon: Activity },
  { href: '/logs', label: 'Logs', icon: ScrollText },
  { href: '/workers', label: 'Workers', icon: Server },
  { href: '/stats', label: 'Stats', icon: BarChart3 },
  { href: '/alarms', label: 'Alarms', icon: BellRing },
  { href: '/recycle-bin', label: 'Recycle bin', icon: Recycle },
];
const ADMIN = [
  { href: '/settings/users', label: 'Users', icon: Users },
  { href: '/settings/tokens', label: 'API tokens', icon: KeyRound },
  { href: '/settings/stats', label: 'Stats day', icon: CalendarClock },
];

function isActive(pathname: string, href: string): boolean {
  return href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(href + '/');
}

/**
 * The console's navigation entries: the pages, then the Settings entries for admins only (the
 * pages refuse others anyway). Shared by the sidebar and the narrow screens' menu
 * (mobile-nav.tsx), so both always list the same pages.
 * @param onNavigate called when an entry is followed (the menu closes itself)
 */
export function NavLinks({ onNavigate }: { onNavigate?: () => void }) {
  const pathname = usePathname() ?? '/';
  const isAdmin = useCan('admin');
  const item = (x: (typeof MAIN)[number]) => {
    const active = isActive(pathname, x.href);
    return (
      <Link
        key={x.href}
        href={x.href}
        onClick={onNavigate}
        aria-current={active ? 'page' : undefined}
        className={cn('flex items-center gap-2 rounded-md px-2 py-1.5 text-[13px] font-medium', active ? 'bg-white text-zinc-900 shadow-xs ring-1 ring-zinc-200' : 'text-zinc-600 hover:bg-zinc-200/60 hover:text-zinc-900')}
      >
        <x.icon className={cn('size-4', active ? 'text-indigo-600' : 'text-zinc-500')} />
        {x.label}
      </Link>
    );
  };
  return (
    <>
      <div className="flex flex-col gap-0.5">{MAIN.map(item)}</div>
      {isAdmin ? (
        <>
          <p className="mb-1 mt-5 px-2 text-[11px] font-medium uppercase tracking-wide text-zinc-600">Settings</p>
          <div className="flex flex-col gap-0.5">{ADMIN.map(item)}</div>
        </>
      ) : null}
    </>
  );
}

/** The console's name and logo, linking to the overview. */
export function Brand({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <Link href="/" onClick={onNavigate} className="flex items-center gap-2 px-2 py-1">
      <Logo className="size-6" />
      <span className="text-[15px] font-semibold tracking-tight">Tickflow</span>
    </Link>
  );
}

/** Left navigation, from 768 px wide (Tailwind's `md`); narrower screens use the top bar's menu (mobile-nav.tsx). */
export function Sidebar() {
  return (
    <nav aria-label="Main" className="hidden h-full w-52 shrink-0 flex-col border-r border-zinc-200 bg-zinc-100/70 px-3 py-3 md:flex">
      <div className="mb-4">
        <Brand />
      </div>
      <NavLinks />
    </nav>
  );
}
