import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { listRuns } from '@/lib/runs';
import { listJobOptions } from '@/lib/jobs/job-options';
import { searchJobOptionsAction } from '../actions';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { FilterBar, type FilterDef } from '@/components/filter-bar';
import { clearFiltersHref, filtersSet, refusalMessage, refusedFilters } from '@/components/filter-params';
import { Pager, parseTrail } from '@/components/pager';
import { LiveRunsTable } from '@/components/runs/live-runs-table';
import { ErrorPanel } from '@/components/error-panel';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Runs' };
export const dynamic = 'force-dynamic';

type SP = { jobId?: string; status?: string; trigger?: string; from?: string; to?: string; q?: string; cursor?: string; trail?: string };

/**
 * /runs: every run across jobs, newest first (lib/runs listRuns keyset on scheduled_for, id).
 * Filters: search (run id or error text), job (searchable), status, trigger, time range (in the display zone;
 * To before From is refused), with the total of matching runs. The first page refreshes itself while runs on it
 * are active.
 */
export default consolePage(async function RunsPage({ searchParams }: { searchParams: Promise<SP> }) {
  const sp = await searchParams;
  const actor = await requireActor('viewer');
  const query = { jobId: sp.jobId || undefined, status: sp.status || undefined, trigger: sp.trigger || undefined, from: sp.from || undefined, to: sp.to || undefined, q: sp.q || undefined, limit: 50, cursor: sp.cursor || undefined };
  let page: Awaited<ReturnType<typeof listRuns>> | null = null;
  let error: string | null = null;
  let refusedFields: Record<string, string> | undefined;
  try {
    page = await listRuns(getDb(), query, actor);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    error = e.message;
    refusedFields = e.fields;
  }
  // Job filter options: the first live jobs by key and the job the URL filters by; typing searches every job.
  const jobOptions = await listJobOptions(getDb(), actor, { selected: sp.jobId }).catch(() => []);
  const keep = { jobId: sp.jobId, status: sp.status, trigger: sp.trigger, from: sp.from, to: sp.to, q: sp.q };
  const filters: FilterDef[] = [
    { kind: 'search', name: 'q', label: 'Search', placeholder: 'Run id or error text' },
    { kind: 'combobox', name: 'jobId', label: 'Job', placeholder: 'Type a job key or name', options: jobOptions, search: searchJobOptionsAction },
    { kind: 'select', name: 'status', label: 'Status', options: ['pending', 'running', 'success', 'failed', 'timeout', 'cancelled', 'skipped'].map((s) => ({ value: s, label: s })) },
    { kind: 'select', name: 'trigger', label: 'Trigger', options: ['schedule', 'manual', 'api', 'retry', 'backfill'].map((s) => ({ value: s, label: s })) },
    { kind: 'datetime', name: 'from', label: 'From', notAfter: 'to' },
    { kind: 'datetime', name: 'to', label: 'To', notBefore: 'from' },
  ];
  const filterNames = filters.map((f) => f.name);
  // the refused filters show their value marked beside the error, never "All" or an empty field (FilterBar `refused`)
  const refused = refusedFilters(refusedFields, filterNames);
  const qs = new URLSearchParams(Object.entries({ ...keep, cursor: sp.cursor }).filter(([, v]) => v) as [string, string][]).toString();
  return (
    <>
      <PageHeader
        title="Runs"
        description={
          page ? (
            <span data-testid="runs-total">
              {page.total.toLocaleString('en-US')}
              {page.totalCapped ? '+' : ''} {page.total === 1 && !page.totalCapped ? 'run matches' : 'runs match'} · newest first
            </span>
          ) : (
            'Every trigger of every job, newest first.'
          )
        }
      />
      <Card className="overflow-hidden">
        <FilterBar filters={filters} refused={refused} />
        {error ? (
          <ErrorPanel message={refusalMessage(refusedFields, filters, error)} />
        ) : page ? (
          <>
            <LiveRunsTable initial={page.items} apiQuery={qs} live={!sp.cursor} filtered={filtersSet(sp, filterNames)} clearHref={clearFiltersHref('/runs', sp, filterNames)} />
            {page.items.length > 0 || sp.cursor ? <Pager basePath="/runs" params={keep} cursor={sp.cursor} trail={parseTrail(sp.trail)} nextCursor={page.nextCursor} count={page.items.length} /> : null}
          </>
        ) : null}
      </Card>
    </>
  );
});
