import type * as React from 'react';
import { Link } from '../ui/link';
import { cn } from '../ui/cn';

/**
 * A job named in a list or a breadcrumb: a link to its page, or, for a purged job (its runs and alarms are kept,
 * its page is gone: lib/jobs/purged-job-ids.ts), its key as text with "(purged)", so that no link opens "not found".
 */
export function JobNameLink({ jobId, jobKey, purged, className, title, children }: { jobId: string; jobKey: string; purged: boolean; className?: string; title?: string; children?: React.ReactNode }) {
  if (purged) {
    return (
      <span className={cn('text-zinc-600', className)} title={`${jobKey}: this job was purged; its runs and alarms are kept`} data-testid="job-purged">
        {children ?? jobKey} <span className="font-sans text-zinc-500">(purged)</span>
      </span>
    );
  }
  return (
    <Link href={`/jobs/${jobId}`} className={className} title={title}>
      {children ?? jobKey}
    </Link>
  );
}
