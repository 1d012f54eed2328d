import type { Metadata } from 'next';
import Link from 'next/link';
import { Logo } from '@/components/shell/logo';
import { Button } from '@/components/ui/button';

export const metadata: Metadata = { title: 'Page not found' };

/**
 * 404 for an address no route answers (`/jobz`, an old bookmark). Without it Next.js showed its own bare page, white
 * on every theme and with no way back; this one has the console's look (the login page's frame) and links to the
 * overview and the jobs list. An unknown job or run inside the console keeps `app/(console)/not-found.tsx`.
 */
export default function NotFound() {
  return (
    <main className="flex min-h-screen items-center justify-center bg-zinc-50 px-4" data-testid="page-not-found">
      <div className="w-full max-w-sm">
        <div className="mb-6 flex items-center justify-center gap-2">
          <Logo className="size-7" />
          <span className="text-lg font-semibold tracking-tight">Tickflow</span>
        </div>
        <div className="rounded-lg border border-zinc-200 bg-white p-6 shadow-sm">
          <p className="mb-1 text-xs font-medium text-zinc-500">404</p>
          <h1 className="mb-1 text-[15px] font-semibold">Page not found</h1>
          <p className="mb-5 text-xs text-zinc-500">No page of the console has this address: the link may be mistyped or out of date.</p>
          <div className="flex gap-2">
            <Button asChild variant="primary">
              <Link href="/">Go to the overview</Link>
            </Button>
            <Button asChild variant="secondary">
              <Link href="/jobs">Jobs</Link>
            </Button>
          </div>
        </div>
      </div>
    </main>
  );
}
