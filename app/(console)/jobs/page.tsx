import type { Metadata } from 'next';
import { FileUp, Plus } from 'lucide-react';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { consolePage, pageErrorMessage } from '@/app/_lib/page-error';
import { listJobs } from '@/lib/jobs/list-jobs';
import { RefreshAfterFires } from '@/components/auto-refresh';
import { resumeRefusal } from '@/lib/jobs/resume-job';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { GatedLinkButton } from '@/components/gated-link';
import { FilterBar, type FilterDef } from '@/components/filter-bar';
import { clearFiltersHref, filtersSet, refusalMessage, refusedFilters } from '@/components/filter-params';
import { isDomainError } from '@/lib/errors';
import { Pager, parseTrail } from '@/components/pager';
import { JobsTable } from '@/components/jobs/jobs-table';
import { ErrorPanel } from '@/components/error-panel';
import { BUILTIN_HANDLERS } from '@/components/jobs/handlers';
import { bulkJobsAction } from './actions';
import { triggerJobAction } from './[id]/actions';

export const metadata: Metadata = { title: 'Jobs' };
export const dynamic = 'force-dynamic';

type SP = { q?: string; status?: string; kind?: string; handler?: string; sort?: string; dir?: string; cursor?: string; trail?: string };
const SORTS = ['key', 'name', 'next_run_at', 'created_at'] as const;
const FILTERS: FilterDef[] = [
  { kind: 'search', name: 'q', label: 'Search', placeholder: 'Key or name' },
  { kind: 'select', name: 'status', label: 'Status', options: ['active', 'paused', 'dead_letter'].map((s) => ({ value: s, label: s.replace('_', ' ') })) },
  { kind: 'select', name: 'kind', label: 'Schedule', options: ['cron', 'interval', 'once', 'manual'].map((s) => ({ value: s, label: s })) },
  { kind: 'select', name: 'handler', label: 'Handler', options: BUILTIN_HANDLERS.map((h) => ({ value: h, label: h })) },
];
const FILTER_NAMES = FILTERS.map((f) => f.name);

/**
 * /jobs: search (key/name), filters (status, schedule kind, handler), sortable columns,
 * keyset paging via lib/jobs listJobs, bulk pause/resume/delete.
 */
export default consolePage(async function JobsPage({ searchParams }: { searchParams: Promise<SP> }) {
  const sp = await searchParams;
  const actor = await requireActor('viewer');
  // An unknown sort or direction is the domain's 400 naming the field (lib/jobs listJobs), shown in the
  // error panel like a bad filter, not a silent fall back to another order.
  const sort = (sp.sort || 'key') as (typeof SORTS)[number];
  const dir = (sp.dir || 'asc') as 'asc' | 'desc';
  const trail = parseTrail(sp.trail);
  let result: Awaited<ReturnType<typeof listJobs>> | null = null;
  let error: string | null = null;
  let refused: Record<string, string> = {};
  try {
    result = await listJobs(getDb(), { q: sp.q || undefined, status: sp.status || undefined, scheduleKind: sp.kind || undefined, handler: sp.handler || undefined, sort, dir, limit: 50, cursor: sp.cursor || undefined }, actor);
  } catch (e) {
    error = pageErrorMessage(e, 'Could not load jobs');
    // the refused filters show their value marked beside the error, never "All" (FilterBar `refused`); the query
    // calls the URL's `kind` scheduleKind
    if (isDomainError(e)) {
      refused = refusedFilters(e.fields, FILTER_NAMES, { scheduleKind: 'kind' });
      error = refusalMessage(e.fields, FILTERS, e.message, { scheduleKind: 'kind' });
    }
  }
  const keep = { q: sp.q, status: sp.status, kind: sp.kind, handler: sp.handler };
  const sortHref = Object.fromEntries(
    SORTS.map((s) => {
      const qs = new URLSearchParams(Object.entries(keep).filter(([, v]) => v) as [string, string][]);
      qs.set('sort', s);
      qs.set('dir', s === sort && dir === 'asc' ? 'desc' : 'asc');
      return [s, `/jobs?${qs}`];
    }),
  );
  return (
    <>
      <PageHeader
        title="Jobs"
        description="Definitions: what runs, when, and how."
        actions={
          <>
            {/* admin: every imported job runs shell (lib/jobs/crontab-import-access.ts) */}
            <GatedLinkButton href="/jobs/import" min="admin">
              <FileUp /> Import crontab
            </GatedLinkButton>
            <GatedLinkButton href="/jobs/new" variant="primary">
              <Plus /> New job
            </GatedLinkButton>
          </>
        }
      />
      <Card className="overflow-hidden">
        <FilterBar filters={FILTERS} refused={refused} />
        {error ? (
          <ErrorPanel message={error} />
        ) : result ? (
          <>
            {/* Next fire and Last run are this render: re-read after the soonest shown fire (components/jobs/jobs-refresh.ts) */}
            <RefreshAfterFires fires={result.items.map((j) => j.nextFireAt)} />
            <JobsTable rows={withResumeRefusal(result.items)} sort={sort} dir={dir} sortHref={sortHref} bulk={bulkJobsAction} runNow={triggerJobAction} filtered={filtersSet(sp, FILTER_NAMES)} clearHref={clearFiltersHref('/jobs', sp, FILTER_NAMES)} />
            {result.items.length > 0 || sp.cursor ? <Pager basePath="/jobs" params={{ ...keep, sort: sp.sort, dir: sp.dir }} cursor={sp.cursor} trail={trail} nextCursor={result.nextCursor} count={result.items.length} /> : null}
          </>
        ) : null}
      </Card>
    </>
  );
});

/** Each row with why its Resume would be refused (lib/jobs/resume-job.ts resumeRefusal), so the row disables it and says why. */
function withResumeRefusal<T extends Parameters<typeof resumeRefusal>[0]>(items: T[], now = new Date()): (T & { resumeRefusal: string | null })[] {
  return items.map((j) => ({ ...j, resumeRefusal: resumeRefusal(j, now) }));
}
