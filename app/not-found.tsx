import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { StandaloneFrame } from '@/components/shell/standalone-frame';
import { Button } from '@/components/ui/button';

export const metadata: Metadata = { title: 'Page not found' };

/**
 * 404 for an address no route answers (`/jobz`, an old bookmark). Without it Next.js showed its own bare page, white
 * on every theme and with no way back; this one has the console's look (StandaloneFrame, as the sign-in page) and links to the
 * overview and the jobs list. An unknown job or run inside the console keeps `app/(console)/not-found.tsx`.
 */
export default function NotFound() {
  return (
    <StandaloneFrame testId="page-not-found">
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
    </StandaloneFrame>
  );
}
