import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { ScrollText } from 'lucide-react';
import { requireActor } from '@/app/_lib/session';
import { consolePage, pageErrorMessage } from '@/app/_lib/page-error';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { listJobOptions } from '@/lib/jobs/job-options';
import { searchTaskLogLines } from '@/lib/task-logs/search-lines';
import { MIN_SEARCH_CHARS } from '@/lib/task-logs/queries';
import type { TaskLogSearchHit } from '@/lib/task-logs/view';
import { searchJobOptionsAction } from '../actions';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState, ListEmptyState } from '@/components/ui/empty-state';
import { FilterBar, type FilterDef } from '@/components/filter-bar';
import { clearFiltersHref, refusalMessage, refusedFilters } from '@/components/filter-params';
import { Pager, parseTrail } from '@/components/pager';
import { ErrorPanel } from '@/components/error-panel';
import { ZonedTime } from '@/components/time';
import { highlightParts } from '@/components/logs/highlight';
import { linesAnchor, shownLineText } from '@/components/runs/task-log-lines-model';
import { cn } from '@/components/ui/cn';
import { JobNameLink } from '@/components/jobs/job-name-link';

export const metadata: Metadata = { title: 'Logs' };
export const dynamic = 'force-dynamic';

type SP = { q?: string; jobId?: string; from?: string; to?: string; cursor?: string; trail?: string };
const FILTER_NAMES = ['q', 'jobId', 'from', 'to'];
const PAGE_LINES = 50;

const LEVEL_CLASS: Record<TaskLogSearchHit['level'], string> = {
  debug: 'text-zinc-500',
  info: 'text-sky-700',
  warn: 'text-amber-700',
  error: 'text-red-700',
};

/**
 * /logs: search the lines every task's handler wrote (docs/task-logs.md "Search"), across jobs or in one,
 * in a time range typed in the display zone; newest first, 50 a page, paged by the search's keyset cursor.
 * Each hit links to its run page, opened on its task at the lines written around that instant. Any role
 * may search (lib/task-logs/search-lines.ts); a refused filter is shown beside its control.
 */
export default consolePage(async function LogsPage({ searchParams }: { searchParams: Promise<SP> }) {
  const sp = await searchParams;
  const actor = await requireActor('viewer');
  const q = sp.q?.trim() || undefined;
  const query = { q, jobId: sp.jobId || undefined, from: sp.from || undefined, to: sp.to || undefined, cursor: sp.cursor || undefined, limit: PAGE_LINES };
  let result: Awaited<ReturnType<typeof searchTaskLogLines>> | null = null;
  let error: string | null = null;
  let refused: Record<string, string> = {};
  let refusedFields: Record<string, string> | undefined;
  if (q) {
    try {
      result = await searchTaskLogLines(getDb(), query, actor);
    } catch (e) {
      error = pageErrorMessage(e, 'Could not search the log lines');
      if (isDomainError(e)) {
        refused = refusedFilters(e.fields, FILTER_NAMES);
        refusedFields = e.fields;
      }
    }
  }
  // Job filter options: the first live jobs by key and the job the URL filters by; typing searches every job.
  const jobOptions = await listJobOptions(getDb(), actor, { selected: sp.jobId }).catch(() => []);
  const filters: FilterDef[] = [
    { kind: 'search', name: 'q', label: 'Text', placeholder: `At least ${MIN_SEARCH_CHARS} characters` },
    { kind: 'combobox', name: 'jobId', label: 'Job', placeholder: 'Type a job key or name', options: jobOptions, search: searchJobOptionsAction },
    { kind: 'datetime', name: 'from', label: 'From', notAfter: 'to' },
    { kind: 'datetime', name: 'to', label: 'To', notBefore: 'from' },
  ];
  const keep = { q: sp.q, jobId: sp.jobId, from: sp.from, to: sp.to };
  return (
    <>
      <PageHeader
        title="Logs"
        description="Search the lines your handlers wrote, across every job or in one, newest first. A line opens its run at that moment of its task's log."
      />
      <Card className="overflow-hidden">
        <FilterBar filters={filters} refused={refused} />
        {error ? (
          <ErrorPanel message={refusalMessage(refusedFields, filters, error)} />
        ) : !result ? (
          <EmptyState
            icon={<ScrollText />}
            title="Search the task log lines"
            description={`Type at least ${MIN_SEARCH_CHARS} characters of a line's text (case does not matter); narrow by job and time range for a faster answer.`}
            data-testid="logs-prompt"
          />
        ) : (
          <>
            {result.lines.length === 0 ? (
              <ListEmptyState icon={<ScrollText />} noun="log lines" filtered clearHref={clearFiltersHref('/logs', sp, FILTER_NAMES)} empty={{ title: 'No log lines' }} />
            ) : (
              <SearchHits hits={result.lines} needle={q ?? ''} />
            )}
            {result.lines.length > 0 || sp.cursor ? (
              <Pager basePath="/logs" params={keep} cursor={sp.cursor} trail={parseTrail(sp.trail)} nextCursor={result.nextCursor} count={result.lines.length} />
            ) : null}
          </>
        )}
      </Card>
    </>
  );
});

/** The hits: when (display zone, ms), level and stream, job, run and step, and the text with the searched text marked. */
function SearchHits({ hits, needle }: { hits: TaskLogSearchHit[]; needle: string }) {
  return (
    <DataTable
      testId="log-hits"
      stack
      rows={hits}
      rowKey={(h) => `${h.taskId}:${h.attempt}:${h.seq}`}
      rowProps={(h) => ({ 'data-testid': 'log-hit', 'data-level': h.level })}
      columns={[
        { key: 'time', header: 'Time', className: 'whitespace-nowrap font-mono text-[11px] text-zinc-600', cell: (h) => <ZonedTime value={h.time} ms /> },
        {
          key: 'level',
          header: 'Level',
          className: 'whitespace-nowrap',
          cell: (h) => (
            <>
              <span className={cn('text-[11px] font-semibold uppercase', LEVEL_CLASS[h.level])}>{h.level}</span>
              {h.stream !== 'log' ? <span className="ml-1.5 text-[11px] text-zinc-500">{h.stream}</span> : null}
            </>
          ),
        },
        {
          key: 'job',
          header: 'Job',
          label: 'Job',
          className: 'max-w-48 truncate',
          title: (h) => h.jobKey ?? h.jobId,
          cell: (h) => (
            <JobNameLink jobId={h.jobId} jobKey={h.jobKey ?? h.jobId} purged={h.jobPurged} className="font-mono text-xs text-indigo-700 hover:underline" />
          ),
        },
        {
          key: 'run',
          header: 'Where',
          label: 'Task',
          className: 'whitespace-nowrap',
          cell: (h) => (
            <Link href={hitHref(h)} className="text-xs text-indigo-700 hover:underline" data-testid="log-hit-link">
              {h.stepKey ?? 'task'} · attempt {h.attempt}
            </Link>
          ),
        },
        {
          key: 'text',
          header: 'Line',
          className: 'font-mono text-xs whitespace-pre-wrap [overflow-wrap:anywhere] md:min-w-80 max-md:basis-full',
          cell: (h) => (
            <span data-testid="log-hit-text">
              {highlightParts(shownLineText(h.text), needle).map((p, i) =>
                p.match ? (
                  <mark key={i} className="rounded-sm bg-amber-200 px-0.5 text-zinc-900">
                    {p.text}
                  </mark>
                ) : (
                  <span key={i}>{p.text}</span>
                ),
              )}
              {h.fields !== undefined ? <span className="text-zinc-500"> {JSON.stringify(h.fields)}</span> : null}
            </span>
          ),
        },
      ]}
    />
  );
}

/** The run page opened on the hit's task, at the lines written around its instant (task-log-lines.tsx anchors). */
function hitHref(h: TaskLogSearchHit): string {
  const task = h.stepKey ? `?task=${encodeURIComponent(h.stepKey)}` : '';
  return `/runs/${h.runId}${task}#${linesAnchor(h.taskId, h.attempt, new Date(h.time).getTime(), h.seq)}`;
}
