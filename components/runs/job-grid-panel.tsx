'use client';

import * as React from 'react';
import { Link } from '@/components/ui/link';
import { useQuery } from '@tanstack/react-query';
import { Tooltip as T } from 'radix-ui';
import { ChevronLeft, ChevronRight, LayoutGrid, X } from 'lucide-react';
import type { GridCell, GridRun, JobGrid } from '@/lib/runs/job-grid';
import { attemptLabel } from '@/lib/runs/run-view';
import { formatDateTime, formatDuration } from '@/lib/time/format';
import { useDisplayZone } from '../display-zone';
import { getJson } from '../api';
import { Button } from '../ui/button';
import { EmptyState } from '../ui/empty-state';
import { ErrorPanel } from '../error-panel';
import { TableSkeleton } from '../ui/skeleton';
import { ACTIVE_RUN_STATUSES } from './runs-table';
import { ScrollX } from '../ui/scroll-x';
import { ownValue } from '@/lib/own-keys';

/**
 * Cell fill per task/run status, in the families of components/status-badge.tsx and the run history strip: dead
 * (retries used up) is the heavier red of the two reds, as its badge is. Its fill carries a white mark (GridMark),
 * so it is a solid under white text, which the dark theme leaves as it is (scripts/gen-dark-theme.mjs): mirrored,
 * red-800 would turn pale there, lighter than failed's red-500.
 */
export const GRID_FILL: Record<string, string> = {
  success: 'bg-emerald-500 hover:bg-emerald-600',
  failed: 'bg-red-500 hover:bg-red-600',
  dead: 'bg-red-800 text-white hover:bg-red-900',
  timeout: 'bg-orange-500 hover:bg-orange-600',
  running: 'bg-sky-500 hover:bg-sky-600 animate-pulse',
  pending: 'bg-amber-300 hover:bg-amber-400',
  cancelled: 'bg-zinc-400 hover:bg-zinc-500',
  skipped: 'bg-zinc-200 hover:bg-zinc-300',
};
const LEGEND = ['success', 'failed', 'dead', 'timeout', 'running', 'pending', 'cancelled', 'skipped'];

/**
 * The mark a state's cell carries besides its colour, where two states share a hue (dead and failed are both red):
 * a cross on dead. The legend shows the same mark, so the grid is read without telling shades apart.
 */
function GridMark({ status, className }: { status: string; className: string }) {
  if (status !== 'dead') return null;
  return <X aria-hidden strokeWidth={3.5} className={className} data-testid="grid-mark-dead" />;
}

/** A legend swatch: the cell's fill without its hover and motion, and its mark. */
function swatchClass(status: string): string {
  return (GRID_FILL[status] ?? '').split(' ').filter((c) => !c.startsWith('hover:') && !c.startsWith('animate-')).join(' ');
}

/** Runs one grid page shows (lib/api/view-schemas.ts DEFAULT_GRID_RUNS). */
const PAGE = 25;

function Tip({ content, children, side = 'top' }: { content: React.ReactNode; children: React.ReactElement; side?: 'top' | 'right' }) {
  return (
    <T.Root>
      <T.Trigger asChild>{children}</T.Trigger>
      <T.Portal>
        <T.Content side={side} sideOffset={6} className="z-50 rounded-md bg-zinc-900 px-2.5 py-1.5 text-xs leading-5 text-white shadow-lg" data-testid="grid-tooltip">
          {content}
          <T.Arrow className="fill-zinc-900" />
        </T.Content>
      </T.Portal>
    </T.Root>
  );
}

function CellTip({ step, cell, run, zone }: { step: string; cell: GridCell; run: GridRun; zone: string }) {
  return (
    <div>
      <div className="font-mono font-medium">{step}</div>
      <div>
        State: <span className="font-medium">{cell.status}</span>
      </div>
      {/* no budget here: the grid does not load the task logs that tell operator re-runs apart (attemptLabel) */}
      <div className="first-letter:uppercase">{attemptLabel({ attempt: cell.attempt, startedAt: cell.startedAt }).short}</div>
      <div>Duration: {formatDuration(cell.durationMs)}</div>
      <div>Started: {cell.startedAt ? formatDateTime(cell.startedAt, zone, { seconds: true, zone: true }) : '—'}</div>
      <div>Finished: {cell.finishedAt ? formatDateTime(cell.finishedAt, zone, { seconds: true, zone: true }) : '—'}</div>
      <div className="text-zinc-500">Run scheduled {formatDateTime(run.scheduledFor, zone, { zone: true })}</div>
    </div>
  );
}

/**
 * A job's Grid tab: its latest runs as columns (oldest left, newest right), its steps as rows in DAG
 * order, one cell per task coloured by state (like Airflow's grid view). Hovering a cell names state,
 * attempts, duration and times in the display zone; clicking it opens the run page on that task
 * (`/runs/:id?task=`). Reads GET /api/v1/jobs/:id/grid; the newest page polls every 2 s while a
 * shown run is active and every 15 s otherwise (like the Runs tab); Older / Newer page by cursor.
 */
export function JobGridPanel({ jobId }: { jobId: string }) {
  const zone = useDisplayZone();
  // cursors of the pages left behind by "Older"; the last one is the page shown (none = the newest page)
  const [trail, setTrail] = React.useState<string[]>([]);
  const cursor = trail[trail.length - 1] ?? null;
  const q = useQuery({
    queryKey: ['job-grid', jobId, cursor],
    queryFn: ({ signal }) => getJson<JobGrid>(`/api/v1/jobs/${encodeURIComponent(jobId)}/grid?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, signal),
    refetchInterval: (query) => (cursor ? false : (query.state.data?.runs ?? []).some((r) => ACTIVE_RUN_STATUSES.has(r.status)) ? 2_000 : 15_000),
  });
  if (q.isPending) return <TableSkeleton rows={4} cols={8} />;
  if (q.isError && !q.data) return <ErrorPanel message={q.error.message} />;
  const grid = q.data!;
  const pager = (
    <div className="flex items-center gap-2">
      <Button size="sm" data-testid="grid-older" disabled={!grid.nextCursor} onClick={() => grid.nextCursor && setTrail([...trail, grid.nextCursor])}>
        <ChevronLeft /> Older
      </Button>
      <Button size="sm" data-testid="grid-newer" disabled={trail.length === 0} onClick={() => setTrail(trail.slice(0, -1))}>
        Newer <ChevronRight />
      </Button>
    </div>
  );
  if (grid.runs.length === 0) {
    return trail.length ? <div className="flex flex-col gap-3">{pager}<EmptyState icon={<LayoutGrid />} title="No older runs" /></div> : <EmptyState icon={<LayoutGrid />} title="This job has not run yet" description="Each run becomes a column here, each step a row." />;
  }
  return (
    <div className="flex flex-col gap-3" data-testid="job-grid" data-page={trail.length}>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-[12px] text-zinc-500">
          {trail.length ? `Older runs: ${grid.runs.length}` : `Latest ${grid.runs.length} run${grid.runs.length === 1 ? '' : 's'}`}, oldest left · steps in DAG order · times in {zone}
        </p>
        {pager}
      </div>
      <ScrollX>
        <table className="border-separate border-spacing-[3px]" aria-label="Runs by step">
          <thead>
            <tr>
              <th className="pr-3 text-left text-[11px] font-medium text-zinc-500">Step \ run</th>
              {grid.runs.map((r) => (
                <th key={r.id} className="p-0">
                  <Tip
                    content={
                      <div>
                        <div className="font-mono">run {r.id.slice(0, 8)}</div>
                        <div>State: {r.status}</div>
                        <div>Trigger: {r.trigger}</div>
                        <div>Scheduled: {formatDateTime(r.scheduledFor, zone, { zone: true })}</div>
                        <div>Duration: {formatDuration(r.durationMs)}</div>
                      </div>
                    }
                  >
                    <Link href={`/runs/${r.id}`} aria-label={`Run ${r.id.slice(0, 8)}: ${r.status}`} data-testid="grid-run" data-run-id={r.id} data-status={r.status} className={`block h-2.5 w-5 rounded-[2px] ${GRID_FILL[r.status] ?? 'bg-zinc-300'}`} />
                  </Tip>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {grid.steps.map((step) => (
              <tr key={step} data-step={step}>
                <th scope="row" className="max-w-[14rem] truncate pr-3 text-left font-mono text-xs font-normal text-zinc-700">
                  {step}
                </th>
                {grid.runs.map((r) => {
                  const cell = ownValue(grid.cells[r.id], step); // a step may be named `constructor`
                  return (
                    <td key={r.id} className="p-0">
                      {cell ? (
                        <Tip side="right" content={<CellTip step={step} cell={cell} run={r} zone={zone} />}>
                          <Link
                            href={`/runs/${r.id}?task=${encodeURIComponent(step)}`}
                            aria-label={`${step} in run ${r.id.slice(0, 8)}: ${cell.status}`}
                            data-testid="grid-cell"
                            data-run-id={r.id}
                            data-step={step}
                            data-status={cell.status}
                            className={`flex size-5 items-center justify-center rounded-[3px] ${GRID_FILL[cell.status] ?? 'bg-zinc-300'}`}
                          >
                            <GridMark status={cell.status} className="size-3.5" />
                          </Link>
                        </Tip>
                      ) : (
                        <span className="block size-5 rounded-[3px] border border-dashed border-zinc-200" title="No task of this step in this run" />
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollX>
      <ul className="flex flex-wrap gap-3 text-[11px] text-zinc-600" aria-label="Legend">
        {LEGEND.map((s) => (
          <li key={s} className="inline-flex items-center gap-1">
            <span aria-hidden data-swatch className={`flex size-3 items-center justify-center rounded-[2px] ${swatchClass(s)}`}>
              <GridMark status={s} className="size-2.5" />
            </span>{' '}
            {s}
          </li>
        ))}
      </ul>
    </div>
  );
}
