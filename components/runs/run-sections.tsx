'use client';
// Sections of the run page (components/runs/run-detail.tsx composes them): header with actions, timing and
// params, the run graph, the tasks table. Each reads the state of useRunDetail.
import { focusSlot } from '../ui/focus-return';
import { DisabledReason } from '../ui/disabled-reason';
import * as React from 'react';
import { Link } from '@/components/ui/link';
import { Ban, RotateCcw } from 'lucide-react';
import { Button } from '../ui/button';
import { Card, CardBody, CardHeader, DescriptionList } from '../ui/card';
import { ConfirmDialog } from '../ui/dialog';
import { ROW_ACTION_LABEL, TaskRecoveryActions } from './task-recovery-actions';
import { Truncate } from '../ui/truncate';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { Elapsed, RelativeTime, ZonedTime, formatDuration, useNow } from '../time';
import { useDisplayZone } from '../display-zone';
import { formatDateTime, zonedInstantsInText } from '@/lib/time/format';
import { PageHeader } from '../shell/page-header';
import { RunGraph } from '../dag/RunGraph';
import { EdgeLegend } from '../dag/Legend';
import { DataTable, STACK_FIRST_LINE } from '../ui/data-table';
import { EDGE_STYLES, type EdgeDraft, type StepDraft } from '../dag/model';
import { attemptLabel, runDurationMs } from '@/lib/runs/run-view';
import { JsonBlock } from './task-section';
import { RETRYABLE_RUN, blockedReason, canRetryTask, type RunDetailState } from './use-run-detail';
import { runTextSegments } from './run-links';
import { JobNameLink } from '../jobs/job-name-link';

/** Title, status, breadcrumbs and the Cancel run / Retry run buttons. */
export function RunHeader({ rd }: { rd: RunDetailState }) {
  const { run, active, busy, onCancel, onRetry } = rd;
  return (
    <PageHeader
      crumb={
        <>
          <Link href="/runs" className="hover:underline">Runs</Link> /{' '}
          <JobNameLink jobId={run.jobId} jobKey={run.jobKey} purged={run.jobPurged} className="font-mono hover:underline" />
        </>
      }
      title={
        <span className="flex items-center gap-2.5">
          <span>
            Run <span className="font-mono">{run.id.slice(0, 8)}</span>
          </span>
          <StatusBadge status={run.status} data-testid="run-status" />
          {active ? <span className="text-xs font-normal text-zinc-500">live</span> : null}
        </span>
      }
      actions={
        <>
          {/* Only a pending or running run can be cancelled: a finished run shows no Cancel run at all, on every width. */}
          {active ? (
            <RoleGate>
              <DisabledReason reason={busy ? 'Working…' : null}>
                <ConfirmDialog
                  trigger={
                    <Button variant="danger-outline" {...focusSlot('run-cancel-retry')}>
                      <Ban /> Cancel run
                    </Button>
                  }
                  title="Cancel this run?"
                  description="Pending and running tasks become cancelled; a late completion from a worker is refused."
                  confirmLabel="Cancel run"
                  cancelLabel="Keep running"
                  onConfirm={onCancel}
                />
              </DisabledReason>
            </RoleGate>
          ) : null}
          <RoleGate>
            <DisabledReason reason={active ? 'The run is still active: cancel it or wait for it to finish' : !RETRYABLE_RUN.has(run.status) ? 'Only failed, timed-out or cancelled runs can be retried' : busy ? 'Working…' : null}>
            {/* takes the focus from Cancel run once the run is cancelled (focus-return.ts) */}
            <Button onClick={onRetry} {...focusSlot('run-cancel-retry')}>
              <RotateCcw /> Retry run
            </Button>
            </DisabledReason>
          </RoleGate>
        </>
      }
    />
  );
}

/** An engine-written reason or error with each run it names linked to that run's page. */
function RunText({ text }: { text: string }) {
  const zone = useDisplayZone();
  return (
    <>
      {runTextSegments(text).map((p, i) =>
        'runId' in p ? (
          <Link key={i} href={`/runs/${p.runId}`} className="font-mono text-xs underline decoration-dotted hover:text-indigo-700" data-testid="run-text-link">
            {p.text}
          </Link>
        ) : (
          <React.Fragment key={i}>{zonedInstantsInText(p.text, zone)}</React.Fragment>
        ),
      )}
    </>
  );
}

/** The run's Duration (runDurationMs: the first task's start to the run's end, or to now), saying so. */
function RunDuration({ run }: { run: RunDetailState['run'] }) {
  const ms = runDurationMs(run, useNow());
  if (!run.startedAt) return <>—</>;
  return (
    <span data-testid="run-duration">
      <span>{ms == null ? 'running' : `${formatDuration(ms)}${run.durationMs == null ? ' so far' : ''}`}</span>
      <span className="ml-1.5 text-xs text-zinc-500">first task&apos;s start → {run.finishedAt ? 'run\'s end' : 'now'}</span>
    </span>
  );
}

/** Timing (with lateness), error, params and the retry chain. */
export function RunSummary({ rd }: { rd: RunDetailState }) {
  const { run } = rd;
  const lateness = run.latenessMs;
  return (
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
              // Says what it counts: the Timeline's total also counts the wait before the first task started.
              ['Duration', <RunDuration key="d" run={run} />],
              ['Lateness', lateness == null ? '—' : <span key="l" title="started − scheduled for" className={lateness > 5000 ? 'text-amber-700' : undefined}>{formatDuration(Math.max(0, lateness))}</span>],
              ['Job version', run.jobPurged ? <span key="v">v{run.jobVersion}</span> : <Link key="v" href={`/jobs/${run.jobId}?tab=versions`} className="text-indigo-700 hover:underline">v{run.jobVersion}</Link>],
              ['Trace id', <span key="tr" className="font-mono text-xs">{run.traceId}</span>],
              ...(run.reason ? ([['Reason', <RunText key="r" text={run.reason} />]] as [string, React.ReactNode][]) : []),
            ]}
          />
          {run.error ? (
            <div className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-800 [overflow-wrap:anywhere]" data-testid="run-error">
              <RunText text={run.error} />
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
                    <span className="w-4 text-right text-xs text-zinc-500">{i + 1}</span>
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
  );
}

/** The run's graph coloured by live task status (DAG runs only); a click selects a task and scrolls to its log. */
export function RunGraphCard({ rd, graph, selected, onSelect }: { rd: RunDetailState; graph: { steps: StepDraft[]; edges: EdgeDraft[] }; selected: string | null; onSelect(stepKey: string): void }) {
  const { run } = rd;
  if (graph.steps.length <= 1) return null;
  return (
    <Card className="mt-4 overflow-hidden">
      {/* The legend sits in the header, off the canvas: inside it covered cards and edges at 1280-1440 px. */}
      <CardHeader title="Graph" description="Click a step to jump to its log" actions={<EdgeLegend />} />
      <RunGraph
        steps={graph.steps}
        edges={graph.edges}
        tasks={run.tasks.map((t) => ({ stepKey: t.stepKey, status: t.status, attempt: t.attempt, startedAt: t.startedAt, maxRetries: t.maxRetries, operatorAttempts: t.operatorAttempts, durationMs: t.startedAt && t.completedAt ? new Date(t.completedAt).getTime() - new Date(t.startedAt).getTime() : null }))}
        // A skipped run (block strategy, misfire) was recorded without tasks: none of its steps ran.
        untaskedStatus={run.status === 'skipped' ? 'skipped' : 'pending'}
        selectedStepKey={selected}
        onSelectTask={onSelect}
      />
    </Card>
  );
}

/**
 * One row per task: status, attempt, duration, worker, parents, and Retry task where allowed. Each cell keeps to one
 * line at 1280-1440 px: long step keys, handlers, attempts and parent lists are cut with the whole text on hover
 * (Truncate), the Worker column gives way below 1400 px (the task's section names its worker), and the row's
 * buttons show their icon alone below 1600 px (ROW_ACTION_LABEL). Below 768 px each task is a card (DataTable
 * `stack`, STACK_FIRST_LINE): its step, status and buttons on the first line, then the handler, attempt, duration,
 * exit code and parents after their labels, so no column is cut off at a phone's width.
 */
export function TasksTable({ rd }: { rd: RunDetailState }) {
  const { run, active, busy, onRetryTask, refresh } = rd;
  const displayZone = useDisplayZone();
  return (
    <Card className="mt-4 overflow-hidden">
      <CardHeader title={`Tasks (${run.tasks.length})`} />
      <DataTable
        testId="tasks-table"
        stack
        rows={run.tasks}
        rowKey={(t) => t.id}
        rowProps={() => ({ className: STACK_FIRST_LINE })}
        columns={[
          {
            key: 'step',
            header: 'Step',
            className: 'font-mono text-xs max-md:-order-4 max-md:min-w-0 max-md:flex-1',
            cell: (t) => (
              <Truncate text={t.stepKey} className="max-w-[11rem]">
                <a href={`#task-${t.stepKey}`} className="hover:underline">
                  {t.stepKey}
                </a>
              </Truncate>
            ),
          },
          {
            key: 'handler',
            header: 'Handler',
            cell: (t) => (
              <Tag mono className="inline-block max-w-[9rem] truncate align-middle" title={t.handler}>
                {t.handler}
              </Tag>
            ),
          },
          {
            key: 'status',
            header: 'Status',
            className: 'whitespace-nowrap max-md:-order-3',
            cell: (t) => (
              <>
                <StatusBadge status={t.status} data-testid={`task-status-${t.stepKey}`} />
                {t.timedOutAt ? (
                  <span className="ml-1 text-xs text-amber-700" data-testid={`task-overdue-${t.stepKey}`} title={`past its timeout since ${formatDateTime(t.timedOutAt, displayZone, { zone: true })}; its slot, resource key and the job's serial turn stay held until the handler returns`}>
                    timed out, still running
                  </span>
                ) : null}
              </>
            ),
          },
          {
            key: 'attempt',
            header: 'Attempt',
            className: 'tabular-nums text-xs',
            cell: (t) => {
              const a = attemptLabel(t);
              // 18rem holds the longest usual label whole ("attempt 12 (10 automatic + 2 by operator)"): at 10rem it was cut
              // at 1280 px while the row had room to spare.
              return <Truncate text={a.long} title={a.title} className="max-w-[18rem]" data-testid={`task-attempt-${t.stepKey}`} />;
            },
          },
          {
            key: 'duration',
            header: 'Duration',
            label: 'duration',
            className: 'whitespace-nowrap text-xs',
            cell: (t) => (t.startedAt ? t.completedAt ? formatDuration(new Date(t.completedAt).getTime() - new Date(t.startedAt).getTime()) : <Elapsed since={t.startedAt} /> : '—'),
          },
          { key: 'exit', header: 'Exit code', label: 'exit code', headerClassName: 'whitespace-nowrap', className: 'font-mono text-xs', cell: (t) => t.exitCode ?? '—' },
          {
            key: 'worker',
            header: 'Worker',
            // gives way first below 1400 px, as the jobs list's Created column: the task's section names its worker
            headerClassName: 'hidden min-[1400px]:table-cell',
            className: 'hidden text-xs text-zinc-600 min-[1400px]:table-cell',
            cell: (t) => <Truncate text={t.lockedBy ?? '—'} className="max-w-[10rem]" />,
          },
          {
            key: 'parents',
            header: 'Depends on',
            label: 'depends on',
            // on a card: the label beside the cut list, not above it (the list's Truncate is a block)
            className: 'font-mono text-xs text-zinc-600 max-md:flex max-md:min-w-0 max-md:max-w-full max-md:items-baseline max-md:gap-1 max-md:before:shrink-0',
            cell: (t) =>
              t.parents.length ? (
                <Truncate text={t.parents.map((p) => `${p.step} (${EDGE_STYLES[p.type].label})`).join(', ')} className="max-w-[13rem]">
                  <span data-testid={`task-parents-${t.stepKey}`}>
                    {t.parents.map((p, i) => (
                      <span key={p.step}>
                        {i > 0 ? ', ' : null}
                        {p.step} <span style={{ color: EDGE_STYLES[p.type].stroke }}>({EDGE_STYLES[p.type].label})</span>
                      </span>
                    ))}
                  </span>
                </Truncate>
              ) : (
                '—'
              ),
          },
          {
            key: 'actions',
            header: '',
            className: 'whitespace-nowrap text-right max-md:-order-2 max-md:empty:hidden',
            cell: (t) => (
              <>
                {canRetryTask(t) && !active ? (
                  <RoleGate>
                    <DisabledReason reason={busy ? 'Working…' : blockedReason(t, 'retry')}>
                      <Button size="sm" variant="ghost" onClick={() => onRetryTask(t)} title="Retry task" data-testid={`retry-task-${t.stepKey}`}>
                        <RotateCcw /> <span className={ROW_ACTION_LABEL}>Retry task</span>
                      </Button>
                    </DisabledReason>
                  </RoleGate>
                ) : null}
                <TaskRecoveryActions task={t} onDone={refresh} />
              </>
            ),
          },
        ]}
      />
    </Card>
  );
}
