// A job's last run, as the jobs list and the job page show it: one run's own status and when it was created
// (lib/jobs/job-view.ts JobView lastRunId / lastRunStatus / lastRunAt; docs/console.md "Last run"), linked to
// that run. A run gone from history (retention) keeps only its time.
import { Link } from '@/components/ui/link';
import { StatusBadge } from '../status-badge';
import { RelativeTime } from '../time';

/** The Last run cell of a job: status badge and relative time of the same run, or "never". */
export function LastRun({ job, timeClassName = 'text-zinc-500' }: { job: { lastRunId: string | null; lastRunAt: string | null; lastRunStatus: string | null }; timeClassName?: string }) {
  if (!job.lastRunAt) return <span className="text-zinc-500">never</span>;
  const body = (
    <>
      {job.lastRunStatus ? <StatusBadge status={job.lastRunStatus} /> : null}
      <RelativeTime value={job.lastRunAt} className={timeClassName} />
    </>
  );
  return job.lastRunId ? (
    <Link href={`/runs/${job.lastRunId}`} data-testid="job-last-run" className="inline-flex items-center gap-1.5 hover:underline">
      {body}
    </Link>
  ) : (
    <span data-testid="job-last-run" className="inline-flex items-center gap-1.5">
      {body}
    </span>
  );
}
