'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { Activity, BarChart3, BellRing, Briefcase, CalendarClock, KeyRound, LayoutDashboard, Recycle, Server, Users } from 'lucide-react';
import { cn } from '../ui/cn';
import { Logo } from './logo';
import { useCan } from '../role';

const MAIN = [
  { href: '/', label: 'Overview', icon: LayoutDashboard },
  { href: '/jobs', label: 'Jobs', icon: Briefcase },
  { href: '/runs', label: 'Runs', icon: Activity },
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

/** Left navigation. Settings entries appear only for admins (the pages refuse others anyway). */
export function Sidebar() {
  const pathname = usePathname() ?? '/';
  const isAdmin = useCan('admin');
  const item = (x: (typeof MAIN)[number]) => {
    const active = isActive(pathname, x.href);
    return (
      <Link
        key={x.href}
        href={x.href}
        aria-current={active ? 'page' : undefined}
        className={cn('flex items-center gap-2 rounded-md px-2 py-1.5 text-[13px] font-medium', active ? 'bg-white text-zinc-900 shadow-xs ring-1 ring-zinc-200' : 'text-zinc-600 hover:bg-zinc-200/60 hover:text-zinc-900')}
      >
        <x.icon className={cn('size-4', active ? 'text-indigo-600' : 'text-zinc-400')} />
        {x.label}
      </Link>
    );
  };
  return (
    <nav aria-label="Main" className="flex h-full w-52 shrink-0 flex-col border-r border-zinc-200 bg-zinc-100/70 px-3 py-3">
      <Link href="/" className="mb-4 flex items-center gap-2 px-2 py-1">
        <Logo className="size-6" />
        <span className="text-[15px] font-semibold tracking-tight">Tickflow</span>
      </Link>
      <div className="flex flex-col gap-0.5">{MAIN.map(item)}</div>
      {isAdmin ? (
        <>
          <p className="mb-1 mt-5 px-2 text-[11px] font-medium uppercase tracking-wide text-zinc-400">Settings</p>
          <div className="flex flex-col gap-0.5">{ADMIN.map(item)}</div>
        </>
      ) : null}
    </nav>
  );
}
