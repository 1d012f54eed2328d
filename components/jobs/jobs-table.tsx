'use client';

import { focusSlot } from '../ui/focus-return';
import * as React from 'react';
import { Link } from '@/components/ui/link';
import { bulkReport, type BulkOutcome } from './bulk-report';
import { useRouter } from 'next/navigation';
import { ArrowDown, ArrowUp, ArrowUpDown, Briefcase, Pause, Play, Plus, Trash2, Zap } from 'lucide-react';
import { Button } from '../ui/button';
import { DataTable, type Column } from '../ui/data-table';
import { ConfirmDialog } from '../ui/dialog';
import { DisabledReason } from '../ui/disabled-reason';
import { ListEmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { ScheduleEnded } from './schedule-ended';
import { RelativeTime, ZonedTime } from '../time';
import { Truncate } from '../ui/truncate';
import { runNowToast } from './form-values';
import { keepShownSelection } from './jobs-refresh';
import { RefreshAfterFires } from '../auto-refresh';
import { handlerSummary } from './handler-summary';
import { LastRun } from './last-run';
import { scheduleSummary } from './schedule-summary';

/** The list columns the table needs (lib/jobs JobListItem satisfies it). */
export type JobRow = {
  id: string;
  key: string;
  name: string;
  status: string;
  schedule: { kind: string; cron?: string; timezone?: string; intervalSeconds?: number; runAt?: string };
  timezone: string;
  nextRunAt: string | null;
  /** the next fire to show (lib/jobs nextFireOf, docs/on-time.md "Next fire"); null when none is coming */
  nextFireAt: string | null;
  /** the last run: one run's id, own status and creation time (components/jobs/last-run.tsx) */
  lastRunId: string | null;
  lastRunAt: string | null;
  lastRunStatus: string | null;
  handlers: string[];
  stepCount: number;
  /** why Resume would be refused (lib/jobs/resume-job.ts resumeRefusal: a `once` job that has fired, an ended window), or null */
  resumeRefusal?: string | null;
};

export type BulkResult = { ok: true; data: { outcomes: BulkOutcome[] } } | { ok: false; error: string };
/** What Run now answers (app/(console)/jobs/[id]/actions.ts triggerJobAction). */
export type RunNowResult = { ok: true; data: { runId: string; outcome: string } } | { ok: false; error: string };

/**
 * Jobs table with row checkboxes and a bulk bar (Pause / Resume / Delete), and per row Run now and Pause /
 * Resume. Column headers link to the sorted URL (`sortHref`). Actions call the server actions (`bulk`, `runNow`)
 * and refresh the page; a refresh (the page's RefreshAfterFires too) keeps the ticked rows still shown. Sized to fit a 1440 px screen beside the sidebar; long text is cut with an ellipsis and
 * shown whole on hover. Empty, it tells filters that match nothing (`filtered`, Clear filters to `clearHref`) from
 * no jobs at all.
 */
export function JobsTable({ rows, sort, dir, sortHref, bulk, runNow, filtered, clearHref }: { rows: JobRow[]; sort: string; dir: 'asc' | 'desc'; sortHref: Record<string, string>; bulk: (action: 'pause' | 'resume' | 'delete', ids: string[]) => Promise<BulkResult>; runNow: (id: string, input: unknown) => Promise<RunNowResult>; filtered: boolean; clearHref: string }) {
  const [selected, setSelected] = React.useState<Set<string>>(new Set());
  const [busy, setBusy] = React.useState(false);
  const router = useRouter();
  const { toast } = useToast();
  // A refresh (the page's RefreshAfterFires, components/auto-refresh.tsx) or a filter gives new rows: the selection keeps the rows still shown, so the periodic re-read
  // never drops what the operator ticked for a bulk action.
  React.useEffect(() => setSelected((s) => keepShownSelection(s, rows.map((r) => r.id)) as Set<string>), [rows]);

  const all = rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggle = (id: string) =>
    setSelected((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const run = async (action: 'pause' | 'resume' | 'delete') => {
    setBusy(true);
    const r = await bulk(action, [...selected]);
    setBusy(false);
    if (!r.ok) {
      toast({ kind: 'error', title: `Bulk ${action} failed`, description: r.error });
      return;
    }
    // each job on its own: the report names the refused ones, which stay ticked; the others are done
    const report = bulkReport(action, r.data.outcomes);
    toast({ kind: report.kind, title: report.title, description: report.description });
    setSelected(new Set(report.refused));
    router.refresh();
  };

  const rowAction = async (j: JobRow, action: 'run' | 'pause' | 'resume') => {
    setBusy(true);
    if (action === 'run') {
      const r = await runNow(j.id, {});
      setBusy(false);
      if (r.ok) {
        toast(runNowToast(r.data.outcome, j.key));
        router.push(`/runs/${r.data.runId}`);
      } else toast({ kind: 'error', title: 'Run now failed', description: r.error });
      return;
    }
    const r = await bulk(action, [j.id]);
    setBusy(false);
    const outcome = r.ok ? r.data.outcomes[0] : undefined;
    if (outcome?.ok) {
      toast({ kind: 'success', title: `${j.key} ${action === 'pause' ? 'paused' : 'resumed'}` });
      router.refresh();
    } else toast({ kind: 'error', title: `${action === 'pause' ? 'Pause' : 'Resume'} failed`, description: !r.ok ? r.error : outcome?.message });
  };

  if (rows.length === 0) {
    return (
      <ListEmptyState
        icon={<Briefcase />}
        noun="jobs"
        filtered={filtered}
        clearHref={clearHref}
        empty={{
          title: 'No jobs yet',
          description: 'Create a job to schedule work: a cron expression, an interval, a single date, or manual runs.',
          action: (
            <RoleGate>
              <Button asChild variant="primary">
                <Link href="/jobs/new">
                  <Plus /> New job
                </Link>
              </Button>
            </RoleGate>
          ),
        }}
      />
    );
  }

  /** A sortable column's header: a link that sorts by it, with the current direction's arrow. */
  const sortable = (key: string, label: string): Pick<Column<JobRow>, 'header' | 'sort'> => {
    const active = sort === key;
    const Icon = active ? (dir === 'asc' ? ArrowUp : ArrowDown) : ArrowUpDown;
    return {
      sort: active ? (dir === 'asc' ? 'ascending' : 'descending') : undefined,
      header: (
        <Link href={sortHref[key]!} className="inline-flex items-center gap-1 hover:text-zinc-900">
          {label}
          <Icon className={active ? 'size-3 text-zinc-700' : 'size-3 text-zinc-300'} />
        </Link>
      ),
    };
  };

  return (
    <>
      {selected.size > 0 ? (
        <div className="flex items-center gap-2 border-b border-indigo-100 bg-indigo-50/60 px-3 py-2 text-[13px]" role="toolbar" aria-label="Bulk actions">
          <span className="mr-2 font-medium text-indigo-900">{selected.size} selected</span>
          <RoleGate>
            <Button size="sm" disabled={busy} onClick={() => run('pause')}>
              <Pause /> Pause
            </Button>
          </RoleGate>
          <RoleGate>
            <Button size="sm" disabled={busy} onClick={() => run('resume')}>
              <Play /> Resume
            </Button>
          </RoleGate>
          <RoleGate>
            <ConfirmDialog
              trigger={
                <Button size="sm" variant="danger-outline" disabled={busy}>
                  <Trash2 /> Delete
                </Button>
              }
              title={`Delete ${selected.size} job${selected.size === 1 ? '' : 's'}?`}
              description="They move to the recycle bin: no more fires, restorable from there. Runs in flight are not cancelled."
              confirmLabel="Delete"
              onConfirm={() => run('delete')}
            />
          </RoleGate>
          <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </div>
      ) : null}
      <DataTable
        testId="jobs-table"
        rows={rows}
        rowKey={(j) => j.id}
        rowProps={(j) => ({ 'data-selected': selected.has(j.id) || undefined, className: 'data-[selected]:[&>td]:bg-indigo-50/40' })}
        columns={[
          {
            key: 'select',
            headerClassName: 'w-8',
            header: <input type="checkbox" aria-label="Select all jobs on this page" checked={all} onChange={() => setSelected(all ? new Set() : new Set(rows.map((r) => r.id)))} className="size-3.5 accent-indigo-600" />,
            cell: (j) => <input type="checkbox" aria-label={`Select ${j.key}`} checked={selected.has(j.id)} onChange={() => toggle(j.id)} className="size-3.5 accent-indigo-600" />,
          },
          {
            key: 'key',
            ...sortable('key', 'Job'),
            cell: (j) => (
              <>
                <Link href={`/jobs/${j.id}`} className="block max-w-[15rem] truncate font-mono text-xs text-indigo-700 hover:underline" title={j.key}>
                  {j.key}
                </Link>
                <Truncate text={j.name} className="max-w-[15rem] text-xs text-zinc-600" />
              </>
            ),
          },
          { key: 'status', header: 'Status', cell: (j) => <span className="inline-flex flex-wrap items-center gap-x-1.5"><StatusBadge status={j.status} /><ScheduleEnded status={j.status} refusal={j.resumeRefusal} /></span> },
          {
            key: 'schedule',
            header: 'Schedule',
            cell: (j) => <Truncate text={scheduleSummary(j.schedule)} className="max-w-[10rem] font-mono text-xs text-zinc-600" />,
          },
          {
            key: 'handler',
            header: 'Handler',
            cell: (j) => {
              const h = handlerSummary(j.handlers, j.stepCount);
              return (
                <span className="flex max-w-[11rem] items-center gap-1" title={h.title} data-testid="job-handlers">
                  <Tag mono className="min-w-0">
                    <span className="truncate">{h.first}</span>
                  </Tag>
                  {h.more ? <span className="shrink-0 whitespace-nowrap text-xs text-zinc-500">+{h.more} more</span> : h.steps > 1 ? <span className="shrink-0 whitespace-nowrap text-xs text-zinc-500">{h.steps} steps</span> : null}
                </span>
              );
            },
          },
          {
            key: 'next_run_at',
            ...sortable('next_run_at', 'Next fire'),
            className: 'whitespace-nowrap text-xs',
            cell: (j) =>
              j.nextFireAt ? (
                <span className="flex flex-col">
                  <ZonedTime value={j.nextFireAt} timeZone={j.timezone} seconds={false} className="text-zinc-800" />
                  <RelativeTime value={j.nextFireAt} className="text-[11px] text-zinc-500" />
                </span>
              ) : (
                <span className="text-zinc-500">—</span>
              ),
          },
          {
            key: 'last_run',
            header: 'Last run',
            className: 'whitespace-nowrap text-xs',
            cell: (j) => <LastRun job={j} />,
          },
          {
            key: 'created_at',
            ...sortable('created_at', 'Created'),
            // the least needed column gives way below 1400 px, so that a row's actions stay on screen at 1280
            headerClassName: 'hidden min-[1400px]:table-cell',
            className: 'hidden whitespace-nowrap text-xs text-zinc-500 min-[1400px]:table-cell',
            cell: (j) => <RelativeTime value={(j as JobRow & { createdAt?: string }).createdAt ?? null} />,
          },
          {
            key: 'actions',
            headerClassName: 'w-20',
            header: <span className="sr-only">Actions</span>,
            className: 'whitespace-nowrap text-right',
            cell: (j) => (
              <>
                <RoleGate>
                  <Button size="icon" variant="ghost" disabled={busy} aria-label={`Run ${j.key} now`} title="Run now" onClick={() => void rowAction(j, 'run')}>
                    <Zap />
                  </Button>
                </RoleGate>
                {j.status === 'active' ? (
                  <RoleGate>
                    <Button size="icon" variant="ghost" disabled={busy} aria-label={`Pause ${j.key}`} title="Pause" {...focusSlot(`job-pause-resume-${j.id}`)} onClick={() => void rowAction(j, 'pause')}>
                      <Pause />
                    </Button>
                  </RoleGate>
                ) : (
                  <RoleGate>
                    <DisabledReason reason={j.resumeRefusal ?? null}>
                      <Button size="icon" variant="ghost" disabled={busy} aria-label={`Resume ${j.key}`} title="Resume" {...focusSlot(`job-pause-resume-${j.id}`)} onClick={() => void rowAction(j, 'resume')}>
                        <Play />
                      </Button>
                    </DisabledReason>
                  </RoleGate>
                )}
              </>
            ),
          },
        ]}
      />
    </>
  );
}
