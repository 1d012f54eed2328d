import { Link } from '@/components/ui/link';
import { ChevronLeft, ChevronRight } from 'lucide-react';
import { buttonVariants } from './ui/button';
import { cn } from './ui/cn';

/**
 * Keyset paging links. The API only hands out `nextCursor`, so the way back is a
 * `trail` of the cursors of the pages before this one, carried in the URL
 * (`?cursor=<this page>&trail=<c1>.<c2>` — cursors are base64url, so "." is a safe separator).
 * `params` are the current search params (filters, sort) to keep.
 */
export function Pager({ basePath, params, cursor, trail, nextCursor, count }: { basePath: string; params: Record<string, string | undefined>; cursor?: string; trail: string[]; nextCursor: string | null; count: number }) {
  const href = (c: string | undefined, t: string[]) => {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v && k !== 'cursor' && k !== 'trail') qs.set(k, v);
    if (c) qs.set('cursor', c);
    if (t.length) qs.set('trail', t.join('.'));
    const s = qs.toString();
    return s ? `${basePath}?${s}` : basePath;
  };
  const hasPrev = !!cursor;
  const prevHref = hasPrev ? href(trail[trail.length - 1], trail.slice(0, -1)) : '#';
  const nextHref = nextCursor ? href(nextCursor, cursor ? [...trail, cursor] : trail) : '#';
  const page = cursor ? trail.length + 2 : 1;
  const btn = cn(buttonVariants({ variant: 'secondary', size: 'sm' }));
  return (
    <nav aria-label="Pagination" className="flex items-center justify-between gap-3 border-t border-zinc-100 px-3 py-2 text-xs text-zinc-500">
      <span>
        Page {page} · {count} shown
      </span>
      <div className="flex gap-2">
        {hasPrev ? (
          <Link href={prevHref} className={btn} rel="prev">
            <ChevronLeft /> Prev
          </Link>
        ) : (
          <span className={cn(btn, 'cursor-not-allowed opacity-50')} aria-disabled title="This is the first page">
            <ChevronLeft /> Prev
          </span>
        )}
        {nextCursor ? (
          <Link href={nextHref} className={btn} rel="next">
            Next <ChevronRight />
          </Link>
        ) : (
          <span className={cn(btn, 'cursor-not-allowed opacity-50')} aria-disabled title="This is the last page">
            Next <ChevronRight />
          </span>
        )}
      </div>
    </nav>
  );
}

/** Splits the `trail` search param into cursors. */
export function parseTrail(trail: string | undefined): string[] {
  return trail ? trail.split('.').filter(Boolean).slice(-50) : [];
}
