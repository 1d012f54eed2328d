'use client';

import { useQuery } from '@tanstack/react-query';
import { Activity } from 'lucide-react';
import { RunsTable, ACTIVE_RUN_STATUSES, NO_RUNS_YET, type RunRow } from './runs-table';
import { ListEmptyState } from '../ui/empty-state';
import { getJson } from '../api';

/**
 * Runs list page body. On the first page (`live`) it re-reads the same query from
 * GET /api/v1/runs every 2 s while a shown run is active (10 s otherwise) so new runs
 * and status changes appear; later pages are static snapshots (keyset pages must not shift). Empty, it says
 * whether the filters match nothing (`filtered`, with Clear filters to `clearHref`) or there are no runs at all.
 */
export function LiveRunsTable({ initial, apiQuery, live, filtered, clearHref }: { initial: RunRow[]; apiQuery: string; live: boolean; filtered: boolean; clearHref: string }) {
  const q = useQuery({
    queryKey: ['runs', apiQuery],
    queryFn: ({ signal }) => getJson<{ items: RunRow[] }>(`/api/v1/runs?${apiQuery}${apiQuery ? '&' : ''}limit=50`, signal).then((r) => r.items),
    initialData: initial,
    enabled: live,
    refetchInterval: (query) => (!live ? false : (query.state.data ?? []).some((r) => ACTIVE_RUN_STATUSES.has(r.status)) ? 2_000 : 10_000),
  });
  return <RunsTable rows={q.data ?? initial} empty={<ListEmptyState icon={<Activity />} noun="runs" filtered={filtered} clearHref={clearHref} empty={NO_RUNS_YET} />} />;
}
