'use client';

import type * as React from 'react';
import { Link } from '@/components/ui/link';
import { Activity } from 'lucide-react';
import { EmptyState } from '../ui/empty-state';
import { StatusBadge, Tag } from '../status-badge';
import { Elapsed, RelativeTime, formatDuration } from '../time';
import { DataTable, STACK_FIRST_LINE } from '../ui/data-table';
import { Truncate } from '../ui/truncate';
import { cn } from '../ui/cn';
import { runProblem } from '@/lib/runs/run-view';
import { zonedInstantsInText } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { JobNameLink } from '../jobs/job-name-link';

/** Columns the runs table shows (lib/runs RunSummary satisfies it). */
export type RunRow = {
  id: string;
  jobId: string;
  jobKey: string;
  /** the job was purged: named as text (JobNameLink) */
  jobPurged: boolean;
  status: string;
  trigger: string;
  triggeredBy: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  latenessMs: number | null;
  error: string | null;
  /** why a skipped, queued or covered run is as it is (runs.reason) */
  reason: string | null;
  parentRunId: string | null;
};

export const ACTIVE_RUN_STATUSES = new Set(['pending', 'running']);

/** What an empty runs list says when no filter hides runs. */
export const NO_RUNS_YET = { title: 'No runs yet', description: 'Runs appear here when the schedule fires or someone presses Run now.' };

/**
 * Runs table (sticky header): status, job, trigger, scheduled, lateness, duration. `showJob` false inside a job's
 * page. `empty` is shown instead of an empty table (default: NO_RUNS_YET). Below 768 px each run is a card (DataTable
 * `stack`): status, run id and job on the first line, then the trigger and the times after their labels, the error
 * on a line of its own, so no column is cut off at a phone's width.
 */
export function RunsTable({ rows, showJob = true, empty }: { rows: RunRow[]; showJob?: boolean; empty?: React.ReactNode }) {
  const zone = useDisplayZone();
  if (rows.length === 0) return empty ?? <EmptyState icon={<Activity />} {...NO_RUNS_YET} />;
  return (
    <DataTable
      testId="runs-table"
      stack
      rows={rows}
      rowKey={(r) => r.id}
      rowProps={(r) => ({ 'data-testid': 'run-row', 'data-run-id': r.id, className: STACK_FIRST_LINE })}
      columns={[
        { key: 'status', header: 'Status', className: 'max-md:-order-4', cell: (r) => <StatusBadge status={r.status} /> },
        {
          key: 'run',
          header: 'Run',
          className: 'font-mono text-xs max-md:-order-3',
          cell: (r) => (
            <>
              <Link href={`/runs/${r.id}`} className="text-indigo-700 hover:underline">
                {r.id.slice(0, 8)}
              </Link>
              {r.parentRunId ? <span className="ml-1 text-[11px] text-zinc-500" title="Retry of an earlier run">↻</span> : null}
            </>
          ),
        },
        showJob && {
          key: 'job',
          header: 'Job',
          className: 'font-mono text-xs max-md:-order-2 max-md:min-w-0 max-md:flex-1',
          cell: (r) => (
            <JobNameLink jobId={r.jobId} jobKey={r.jobKey} purged={r.jobPurged} className="block max-w-[16rem] truncate hover:underline" title={r.jobKey} />
          ),
        },
        {
          key: 'trigger',
          header: 'Trigger',
          // One line: a worker's long name ("scheduler:vm-20491-…") wrapped and doubled the row's height; it is cut
          // with the whole text on hover, as the job key is.
          cell: (r) => (
            <span className="flex min-w-0 items-center gap-1.5">
              <Tag className="shrink-0 whitespace-nowrap">{r.trigger}</Tag>
              <Truncate text={r.triggeredBy} className="min-w-0 max-w-[12rem] text-xs text-zinc-500" data-testid="run-triggered-by" />
            </span>
          ),
        },
        { key: 'scheduled', header: 'Scheduled for', label: 'scheduled', className: 'whitespace-nowrap text-xs', cell: (r) => <RelativeTime value={r.scheduledFor} /> },
        { key: 'lateness', header: 'Lateness', label: 'late', className: 'whitespace-nowrap text-xs text-zinc-600', cell: (r) => (r.latenessMs == null ? '—' : formatDuration(Math.max(0, r.latenessMs))) },
        {
          key: 'duration',
          header: 'Duration',
          label: 'duration',
          className: 'whitespace-nowrap text-xs text-zinc-600',
          cell: (r) => (r.durationMs != null ? formatDuration(r.durationMs) : r.startedAt && !r.finishedAt ? <LiveDuration since={r.startedAt} /> : '—'),
        },
        {
          key: 'error',
          header: 'Error',
          className: 'text-xs max-md:basis-full max-md:empty:hidden',
          cell: (r) => {
            const p = runProblem(r);
            return p ? <Truncate text={zonedInstantsInText(p.text, zone)} className={cn('max-w-[20rem]', p.kind === 'error' ? 'text-red-700' : 'text-zinc-600')} data-testid={`run-${p.kind}`} /> : null;
          },
        },
      ]}
    />
  );
}

function LiveDuration({ since }: { since: string }) {
  return <Elapsed since={since} className="text-sky-700" />;
}
