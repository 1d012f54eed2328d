'use client';

import { useQuery } from '@tanstack/react-query';
import { Activity } from 'lucide-react';
import { RunsTable, ACTIVE_RUN_STATUSES, NO_RUNS_YET, type RunRow } from './runs-table';
import { EmptyState } from '../ui/empty-state';
import { TableSkeleton } from '../ui/skeleton';
import { ErrorPanel } from '../error-panel';
import { getJson } from '../api';

/**
 * A job's 25 latest runs, live from GET /api/v1/runs?jobId=: polled every 2 s while any
 * shown run is pending/running, every 15 s otherwise (to pick up scheduled fires).
 */
export function JobRunsPanel({ jobId, initial }: { jobId: string; initial?: RunRow[] }) {
  const q = useQuery({
    queryKey: ['job-runs', jobId],
    queryFn: ({ signal }) => getJson<{ items: RunRow[] }>(`/api/v1/runs?jobId=${encodeURIComponent(jobId)}&limit=25`, signal).then((r) => r.items),
    initialData: initial,
    refetchInterval: (query) => ((query.state.data ?? []).some((r) => ACTIVE_RUN_STATUSES.has(r.status)) ? 2_000 : 15_000),
  });
  if (q.isPending) return <TableSkeleton rows={5} cols={6} />;
  if (q.isError && !q.data) return <ErrorPanel message={q.error.message} />;
  return <RunsTable rows={q.data ?? []} showJob={false} empty={<EmptyState icon={<Activity />} title="This job has not run yet" description={NO_RUNS_YET.description} />} />;
}
