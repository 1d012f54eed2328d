import { Skeleton, TableSkeleton } from '@/components/ui/skeleton';

/** Shown while a console page's server data loads (route-level Suspense). */
export default function Loading() {
  return (
    <div aria-busy="true">
      <Skeleton className="mb-2 h-3 w-24" />
      <Skeleton className="mb-5 h-6 w-64" />
      <div className="rounded-lg border border-zinc-200 bg-white">
        <TableSkeleton rows={10} cols={6} />
      </div>
    </div>
  );
}
