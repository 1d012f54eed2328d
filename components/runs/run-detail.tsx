'use client';

import * as React from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Ban, ChevronRight, RotateCcw } from 'lucide-react';
import type { RunView, TaskView } from '@/lib/runs/run-view';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader, DescriptionList } from '../ui/card';
import { ConfirmDialog } from '../ui/dialog';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { Elapsed, RelativeTime, ZonedTime, formatDuration, formatUtc } from '../time';
import { PageHeader } from '../shell/page-header';
import { getJson } from '../api';
import { cn } from '../ui/cn';
import { RunGraph } from '../dag/RunGraph';
import type { EdgeDraft, StepDraft } from '../dag/model';
import { StateChangeLinesLink, TaskLogLines } from './task-log-lines';

type R<T> = { ok: true; data: T } | { ok: false; error: string };
const ACTIVE = new Set(['pending', 'running']);
/** What the server accepts (lib/engine retry-task / retry-run): a skipped task only when skipped by a failure (it has an error). */
const RETRYABLE_TASK = new Set(['dead', 'cancelled', 'skipped', 'failed', 'timeout']);
const RETRYABLE_RUN = new Set(['failed', 'timeout', 'cancelled']);
const canRetryTask = (t: { status: string; error: string | null }) => RETRYABLE_TASK.has(t.status) && (t.status !== 'skipped' || t.error !== null);

export type RunDetailProps = {
  /** The run as the server rendered it (lib/runs getRun). */
  initial: RunView;
  /** Steps and edges of the job version the run was created from (drawn by RunGraph, coloured by live task status). */
  graph: { steps: StepDraft[]; edges: EdgeDraft[] };
  cancel: (runId: string) => Promise<R<{ status: string }>>;
  retry: (runId: string) => Promise<R<{ runId: string }>>;
  retryTask: (taskId: string) => Promise<R<{ status: string }>>;
};

/**
 * Run page body. Polls GET /api/v1/runs/:id every second while the run is pending or
 * running and stops once it is final. Shows status (`data-testid="run-status"`),
 * timings with lateness, params, error, retry chain, the tasks table
 * (`task-status-<stepKey>`), each task's log timeline (`task-log-row`) and output.
 */
export function RunDetail({ initial, graph, cancel, retry, retryTask }: RunDetailProps) {
  const router = useRouter();
  const qc = useQueryClient();
  const { toast } = useToast();
  const [busy, setBusy] = React.useState(false);
  const [selected, setSelected] = React.useState<string | null>(null);
  const q = useQuery({
    queryKey: ['run', initial.id],
    queryFn: ({ signal }) => getJson<RunView>(`/api/v1/runs/${initial.id}`, signal),
    initialData: initial,
    // Final runs can still change by an operator's task retry; that path refetches explicitly.
    refetchInterval: (query) => (query.state.data && ACTIVE.has(query.state.data.status) ? 1_000 : false),
  });
  const run = q.data;
  const active = ACTIVE.has(run.status);
  const refresh = () => qc.invalidateQueries({ queryKey: ['run', initial.id] });

  const onCancel = async () => {
    setBusy(true);
    const r = await cancel(run.id);
    setBusy(false);
    if (r.ok) toast({ kind: 'success', title: 'Run cancelled' });
    else toast({ kind: 'error', title: 'Cancel failed', description: r.error });
    refresh();
  };
  const onRetry = async () => {
    setBusy(true);
    const r = await retry(run.id);
    setBusy(false);
    if (r.ok) {
      toast({ kind: 'success', title: 'Retry started as a new run' });
      router.push(`/runs/${r.data.runId}`);
    } else toast({ kind: 'error', title: 'Retry failed', description: r.error });
  };
  const onRetryTask = async (t: TaskView) => {
    const r = await retryTask(t.id);
    if (r.ok) toast({ kind: 'success', title: `Task ${t.stepKey} queued for another attempt` });
    else toast({ kind: 'error', title: 'Retry task failed', description: r.error });
    refresh();
  };

  const lateness = run.latenessMs;
  return (
    <>
      <PageHeader
        crumb={
          <>
            <Link href="/runs" className="hover:underline">Runs</Link> /{' '}
            <Link href={`/jobs/${run.jobId}`} className="font-mono hover:underline">{run.jobKey}</Link>
          </>
        }
        title={
          <span className="flex items-center gap-2.5">
            <span>
              Run <span className="font-mono">{run.id.slice(0, 8)}</span>
            </span>
            <StatusBadge status={run.status} data-testid="run-status" />
            {active ? <span className="text-xs font-normal text-zinc-400">live</span> : null}
          </span>
        }
        actions={
          <>
            <RoleGate>
              <ConfirmDialog
                disabled={!active || busy}
                trigger={
                  <Button variant="danger-outline" disabled={!active || busy}>
                    <Ban /> Cancel run
                  </Button>
                }
                title="Cancel this run?"
                description="Pending and running tasks become cancelled; a late completion from a worker is refused."
                confirmLabel="Cancel run"
                onConfirm={onCancel}
              />
            </RoleGate>
            <RoleGate>
              <Button disabled={active || busy || !RETRYABLE_RUN.has(run.status)} title={RETRYABLE_RUN.has(run.status) ? undefined : 'Only failed, timed-out or cancelled runs can be retried'} onClick={onRetry}>
                <RotateCcw /> Retry run
              </Button>
            </RoleGate>
          </>
        }
      />

      <div className="grid grid-cols-1 gap-4 xl:grid-cols-3">
        <Card className="xl:col-span-2">
          <CardHeader title="Timing" />
          <CardBody>
            <DescriptionList
              items={[
                ['Trigger', <span key="t"><Tag>{run.trigger}</Tag> <span className="text-zinc-600">by {run.triggeredBy}</span></span>],
                ['Scheduled for', <ZonedTime key="s" value={run.scheduledFor} />],
                ['Started', run.startedAt ? <ZonedTime key="st" value={run.startedAt} /> : '—'],
                ['Finished', run.finishedAt ? <ZonedTime key="f" value={run.finishedAt} /> : '—'],
                ['Duration', run.durationMs != null ? formatDuration(run.durationMs) : run.startedAt ? <Elapsed key="d" since={run.startedAt} suffix=" so far" /> : '—'],
                ['Lateness', lateness == null ? '—' : <span key="l" title="started − scheduled for" className={lateness > 5000 ? 'text-amber-700' : undefined}>{formatDuration(Math.max(0, lateness))}</span>],
                ['Job version', <Link key="v" href={`/jobs/${run.jobId}?tab=versions`} className="text-indigo-700 hover:underline">v{run.jobVersion}</Link>],
                ['Trace id', <span key="tr" className="font-mono text-xs">{run.traceId}</span>],
                ...(run.reason ? ([['Reason', run.reason]] as [string, React.ReactNode][]) : []),
              ]}
            />
            {run.error ? (
              <div className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-800" data-testid="run-error">
                {run.error}
              </div>
            ) : null}
          </CardBody>
        </Card>
        <Card>
          <CardHeader title="Params" description="Payload override of this run" />
          <CardBody>
            <JsonBlock value={run.params} empty="No override" />
          </CardBody>
          {run.retryChain.length > 1 ? (
            <>
              <CardHeader title="Retry chain" className="border-t" />
              <CardBody>
                <ol className="space-y-1 text-[13px]" data-testid="retry-chain">
                  {run.retryChain.map((r, i) => (
                    <li key={r.id} className="flex items-center gap-2">
                      <span className="w-4 text-right text-xs text-zinc-400">{i + 1}</span>
                      {r.id === run.id ? <span className="font-mono text-xs font-semibold">{r.id.slice(0, 8)}</span> : <Link href={`/runs/${r.id}`} className="font-mono text-xs text-indigo-700 hover:underline">{r.id.slice(0, 8)}</Link>}
                      <StatusBadge status={r.status} />
                      <RelativeTime value={r.scheduledFor} className="text-xs text-zinc-500" />
                    </li>
                  ))}
                </ol>
              </CardBody>
            </>
          ) : null}
        </Card>
      </div>

      {graph.steps.length > 1 ? (
        <Card className="mt-4 overflow-hidden">
          <CardHeader title="Graph" description="Click a step to jump to its log" />
          <RunGraph
            steps={graph.steps}
            edges={graph.edges}
            tasks={run.tasks.map((t) => ({ stepKey: t.stepKey, status: t.status, attempt: t.attempt, durationMs: t.startedAt && t.completedAt ? new Date(t.completedAt).getTime() - new Date(t.startedAt).getTime() : null }))}
            selectedStepKey={selected}
            onSelectTask={(k) => {
              setSelected(k);
              document.getElementById(`task-${k}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' });
            }}
            className="h-[360px]"
          />
        </Card>
      ) : null}

      <Card className="mt-4 overflow-hidden">
        <CardHeader title={`Tasks (${run.tasks.length})`} />
        <div className="overflow-x-auto">
          <table className="tf-table" data-testid="tasks-table">
            <thead>
              <tr>
                <th>Step</th>
                <th>Handler</th>
                <th>Status</th>
                <th>Attempt</th>
                <th>Duration</th>
                <th>Exit code</th>
                <th>Worker</th>
                <th>Depends on</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {run.tasks.map((t) => (
                <tr key={t.id}>
                  <td className="font-mono text-xs">
                    <a href={`#task-${t.stepKey}`} className="hover:underline">{t.stepKey}</a>
                  </td>
                  <td>
                    <Tag mono>{t.handler}</Tag>
                  </td>
                  <td>
                    <StatusBadge status={t.status} data-testid={`task-status-${t.stepKey}`} />
                    {t.timedOutAt ? (
                      <span className="ml-1 text-xs text-amber-700" data-testid={`task-overdue-${t.stepKey}`} title={`past its timeout since ${t.timedOutAt}; its slot, resource key and the job's serial turn stay held until the handler returns`}>
                        timed out, still running
                      </span>
                    ) : null}
                  </td>
                  <td className="tabular-nums text-xs">
                    {t.attempt} / {t.maxRetries + 1}
                  </td>
                  <td className="text-xs">{t.startedAt ? (t.completedAt ? formatDuration(new Date(t.completedAt).getTime() - new Date(t.startedAt).getTime()) : <Elapsed since={t.startedAt} suffix="…" />) : '—'}</td>
                  <td className="font-mono text-xs">{t.exitCode ?? '—'}</td>
                  <td className="max-w-[10rem] truncate text-xs text-zinc-600">{t.lockedBy ?? '—'}</td>
                  <td className="font-mono text-xs text-zinc-600">{t.parents.length ? t.parents.join(', ') : '—'}</td>
                  <td className="text-right">
                    {canRetryTask(t) && !active ? (
                      <RoleGate>
                        <Button size="sm" variant="ghost" onClick={() => onRetryTask(t)}>
                          <RotateCcw /> Retry task
                        </Button>
                      </RoleGate>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Card>

      <div className="mt-4 space-y-3">
        {run.tasks.map((t) => (
          <TaskSection key={t.id} task={t} defaultOpen={run.tasks.length <= 6} />
        ))}
      </div>
    </>
  );
}

/** One task: its log timeline (every state change) and its captured output / error. */
function TaskSection({ task, defaultOpen }: { task: TaskView; defaultOpen: boolean }) {
  const [open, setOpen] = React.useState(defaultOpen);
  return (
    <Card id={`task-${task.stepKey}`} data-testid={`task-section-${task.stepKey}`}>
      <button type="button" onClick={() => setOpen((o) => !o)} aria-expanded={open} className="flex w-full items-center gap-2 px-4 py-2.5 text-left">
        <ChevronRight className={cn('size-4 text-zinc-400 transition-transform', open && 'rotate-90')} />
        <span className="font-mono text-[13px] font-semibold">{task.stepKey}</span>
        <StatusBadge status={task.status} />
        <span className="text-xs text-zinc-500">
          attempt {task.attempt} · {task.logs.length} log entries
        </span>
      </button>
      {open ? (
        <div className="grid grid-cols-1 gap-4 border-t border-zinc-100 px-4 py-3 lg:grid-cols-2">
          <div>
            <p className="mb-1.5 text-xs font-medium text-zinc-600">Task log</p>
            <ol className="relative space-y-0 border-l border-zinc-200 pl-4" data-testid={`task-log-${task.stepKey}`}>
              {task.logs.map((l) => (
                <li key={l.id} className="relative pb-2 last:pb-0" data-testid="task-log-row" data-from={l.fromStatus ?? ''} data-to={l.toStatus}>
                  <span className={cn('absolute -left-[21px] top-1.5 size-2 rounded-full ring-2 ring-white', dotColor(l.toStatus))} aria-hidden />
                  <div className="flex flex-wrap items-center gap-1.5 text-xs">
                    <span className="text-zinc-500">{l.fromStatus ?? 'created'}</span>
                    <span className="text-zinc-400">→</span>
                    <StatusBadge status={l.toStatus} />
                    <span className="text-zinc-500">#{l.attempt}</span>
                    <time dateTime={l.createdAt} title={formatUtc(l.createdAt)} className="ml-auto font-mono text-[11px] text-zinc-500">
                      {formatUtc(l.createdAt).slice(11, 19)}.{String(new Date(l.createdAt).getUTCMilliseconds()).padStart(3, '0')}
                    </time>
                  </div>
                  {l.message ? <p className="mt-0.5 break-words text-xs text-zinc-700">{l.message}</p> : null}
                  {l.nodeId ? <p className="text-[11px] text-zinc-400">on {l.nodeId}</p> : null}
                  <StateChangeLinesLink taskId={task.id} attempt={l.attempt} createdAt={l.createdAt} />
                </li>
              ))}
            </ol>
          </div>
          <div className="min-w-0 space-y-3">
            {task.error ? (
              <div>
                <p className="mb-1 text-xs font-medium text-zinc-600">Error</p>
                <pre className="overflow-x-auto rounded-md border border-red-200 bg-red-50 p-2 text-xs whitespace-pre-wrap text-red-800">{task.error}</pre>
              </div>
            ) : null}
            <div>
              <p className="mb-1 text-xs font-medium text-zinc-600">Output</p>
              <OutputView output={task.output} />
            </div>
            <details>
              <summary className="cursor-pointer text-xs font-medium text-zinc-600">Payload</summary>
              <JsonBlock value={task.payload} empty="{}" />
            </details>
          </div>
          <div className="lg:col-span-2">
            <TaskLogLines task={task} />
          </div>
        </div>
      ) : null}
    </Card>
  );
}

function dotColor(status: string): string {
  return (
    {
      pending: 'bg-amber-400',
      running: 'bg-sky-500',
      success: 'bg-emerald-500',
      failed: 'bg-red-500',
      timeout: 'bg-orange-500',
      dead: 'bg-red-700',
      cancelled: 'bg-zinc-400',
      skipped: 'bg-zinc-300',
    } as Record<string, string>
  )[status] ?? 'bg-zinc-400';
}

/** Captured output: shell stdout/stderr as plain text blocks, anything else as pretty JSON. */
function OutputView({ output }: { output: unknown }) {
  if (output == null) return <p className="text-xs text-zinc-400">No output captured.</p>;
  const o = output as Record<string, unknown>;
  if (typeof o === 'object' && ('stdout' in o || 'stderr' in o)) {
    const { stdout, stderr, ...rest } = o;
    return (
      <div className="space-y-2">
        <Pre label="stdout" text={String(stdout ?? '')} />
        {stderr ? <Pre label="stderr" text={String(stderr)} tone="err" /> : null}
        {Object.keys(rest).length ? <JsonBlock value={rest} /> : null}
      </div>
    );
  }
  return <JsonBlock value={output} />;
}

function Pre({ label, text, tone }: { label: string; text: string; tone?: 'err' }) {
  return (
    <div>
      <p className="text-[11px] font-medium text-zinc-500">{label}</p>
      <pre className={cn('max-h-80 overflow-auto rounded-md border p-2 font-mono text-xs whitespace-pre-wrap', tone === 'err' ? 'border-red-200 bg-red-50 text-red-800' : 'border-zinc-200 bg-zinc-950 text-zinc-100')}>{text || ' '}</pre>
    </div>
  );
}

/** Pretty-printed JSON in a scrollable monospace block. */
export function JsonBlock({ value, empty }: { value: unknown; empty?: string }) {
  const isEmpty = value == null || (typeof value === 'object' && Object.keys(value as object).length === 0);
  if (isEmpty && empty) return <p className="text-xs text-zinc-400">{empty}</p>;
  return <pre className="max-h-80 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-800" data-testid="json-block">{JSON.stringify(value, null, 2)}</pre>;
}
