'use client';

import Link from 'next/link';
import { Activity } from 'lucide-react';
import { EmptyState } from '../ui/empty-state';
import { StatusBadge, Tag } from '../status-badge';
import { Elapsed, RelativeTime, formatDuration } from '../time';

/** Columns the runs table shows (lib/runs RunSummary satisfies it). */
export type RunRow = {
  id: string;
  jobId: string;
  jobKey: string;
  status: string;
  trigger: string;
  triggeredBy: string;
  scheduledFor: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  latenessMs: number | null;
  error: string | null;
  parentRunId: string | null;
};

export const ACTIVE_RUN_STATUSES = new Set(['pending', 'running']);

/** Runs table (sticky header): status, job, trigger, scheduled, lateness, duration. `showJob` false inside a job's page. */
export function RunsTable({ rows, showJob = true, emptyText }: { rows: RunRow[]; showJob?: boolean; emptyText?: string }) {
  if (rows.length === 0) return <EmptyState icon={<Activity />} title={emptyText ?? 'No runs yet'} description="Runs appear here when the schedule fires or someone presses Run now." />;
  return (
    <div className="overflow-x-auto">
      <table className="tf-table" data-testid="runs-table">
        <thead>
          <tr>
            <th>Status</th>
            <th>Run</th>
            {showJob ? <th>Job</th> : null}
            <th>Trigger</th>
            <th>Scheduled for</th>
            <th>Lateness</th>
            <th>Duration</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} data-testid="run-row" data-run-id={r.id}>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td className="font-mono text-xs">
                <Link href={`/runs/${r.id}`} className="text-indigo-700 hover:underline">
                  {r.id.slice(0, 8)}
                </Link>
                {r.parentRunId ? <span className="ml-1 text-[11px] text-zinc-400" title="Retry of an earlier run">↻</span> : null}
              </td>
              {showJob ? (
                <td className="max-w-[16rem] truncate font-mono text-xs">
                  <Link href={`/jobs/${r.jobId}`} className="hover:underline">
                    {r.jobKey}
                  </Link>
                </td>
              ) : null}
              <td>
                <Tag>{r.trigger}</Tag>
                <span className="ml-1.5 text-xs text-zinc-500">{r.triggeredBy}</span>
              </td>
              <td className="whitespace-nowrap text-xs">
                <RelativeTime value={r.scheduledFor} />
              </td>
              <td className="whitespace-nowrap text-xs text-zinc-600">{r.latenessMs == null ? '—' : formatDuration(Math.max(0, r.latenessMs))}</td>
              <td className="whitespace-nowrap text-xs text-zinc-600">{r.durationMs != null ? formatDuration(r.durationMs) : r.startedAt && !r.finishedAt ? <LiveDuration since={r.startedAt} /> : '—'}</td>
              <td className="max-w-[20rem] truncate text-xs text-red-700" title={r.error ?? undefined}>
                {r.error ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function LiveDuration({ since }: { since: string }) {
  return (
    <span className="text-sky-700">
      <Elapsed since={since} suffix="…" />
    </span>
  );
}
