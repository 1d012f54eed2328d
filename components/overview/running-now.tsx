'use client';
// The overview's "Running now": every running task with its job, step, worker and elapsed time, polled live.
import { Link } from '@/components/ui/link';
import { useQuery } from '@tanstack/react-query';
import type { Overview } from '@/lib/stats/get-overview';
import { getJson } from '../api';
import { Card, CardHeader } from '../ui/card';
import { EmptyState } from '../ui/empty-state';
import { Elapsed } from '../time';
import { DataTable } from '../ui/data-table';

/** Polls GET /api/v1/stats/overview every 3 s (the page's server render is the first value). */
export function useLiveOverview(initial: Overview): Overview {
  const q = useQuery({
    queryKey: ['overview'],
    queryFn: ({ signal }) => getJson<Overview>('/api/v1/stats/overview', signal),
    initialData: initial,
    refetchInterval: 3_000,
  });
  return q.data;
}

/** The card (test id `running-now`, rows `running-row`). */
export function RunningNow({ initial }: { initial: Overview }) {
  const o = useLiveOverview(initial);
  const rows = o.runningNow;
  return (
    <Card className="overflow-hidden">
      <CardHeader title={`Running now (${rows.length})`} description="Live: refreshed every 3 seconds" />
      {rows.length === 0 ? (
        <EmptyState title="Nothing is running" />
      ) : (
        <DataTable
          testId="running-now"
          rows={rows}
          rowKey={(t) => t.taskId}
          rowProps={() => ({ 'data-testid': 'running-row' })}
          columns={[
            {
              key: 'job',
              header: 'Job',
              cell: (t) => (
                <>
                  <Link href={`/runs/${t.runId}`} className="text-indigo-700 hover:underline">
                    {t.jobName || t.jobKey}
                  </Link>
                  <div className="font-mono text-[11px] text-zinc-500">{t.jobKey}</div>
                </>
              ),
            },
            {
              key: 'step',
              header: 'Step',
              className: 'font-mono text-xs',
              cell: (t) => (
                <>
                  {t.stepKey}
                  {t.attempt > 1 ? <span className="text-zinc-500"> · attempt {t.attempt}</span> : null}
                </>
              ),
            },
            { key: 'worker', header: 'Worker', className: 'max-w-[12rem] truncate text-xs text-zinc-600', cell: (t) => t.worker ?? '—' },
            { key: 'elapsed', header: 'Elapsed', className: 'text-xs tabular-nums text-sky-700', cell: (t) => (t.startedAt ? <Elapsed since={t.startedAt} suffix="" /> : '—') },
          ]}
        />
      )}
    </Card>
  );
}
