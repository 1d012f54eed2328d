'use client';
// One task of the run page: its log timeline and its captured output / error.
import { StateChangeLinesLink, TaskLogLines } from './task-log-lines';
import { lineText } from './task-log-lines-model';
import * as React from 'react';
import { ChevronRight } from 'lucide-react';
import { attemptLabel, madeNoAttempt, taskLogNodeNote, type TaskLogView, type TaskView } from '@/lib/runs/run-view';
import { Card } from '../ui/card';
import { StatusBadge } from '../status-badge';
import { ZonedTime } from '../time';
import { cn } from '../ui/cn';

/** One task: its log timeline (every state change) and its captured output / error. `focused`: the task the page was opened on (`?task=`), ringed. */
export function TaskSection({ task, defaultOpen, focused = false }: { task: TaskView; defaultOpen: boolean; focused?: boolean }) {
  const [open, setOpen] = React.useState(defaultOpen);
  const noAttempt = madeNoAttempt(task);
  const attempt = attemptLabel(task);
  return (
    <Card id={`task-${task.stepKey}`} data-testid={`task-section-${task.stepKey}`} data-focused={focused || undefined} className={cn('scroll-mt-4', focused && 'ring-2 ring-indigo-400')}>
      <button type="button" onClick={() => setOpen((o) => !o)} aria-expanded={open} className="flex w-full items-center gap-2 px-4 py-2.5 text-left">
        <ChevronRight className={cn('size-4 text-zinc-500 transition-transform', open && 'rotate-90')} />
        <span className="font-mono text-[13px] font-semibold">{task.stepKey}</span>
        <StatusBadge status={task.status} />
        <span className="text-xs text-zinc-500">
          <span title={attempt.title}>{attempt.long}</span> · {task.logs.length} state {task.logs.length === 1 ? 'change' : 'changes'}
        </span>
        {task.noLiveWorker ? (
          <span className="text-xs text-amber-700" data-testid="task-no-live-worker">
            {task.noLiveWorker.outsideRouting ? (
              <>
                waiting: no live worker its routing allows offers <span className="font-mono">{task.handler}</span>
              </>
            ) : (
              <>
                waiting: no live worker offers <span className="font-mono">{task.handler}</span>
              </>
            )}
          </span>
        ) : null}
      </button>
      {open && task.noLiveWorker ? (
        <p className="mx-4 mb-2 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900" data-testid="task-no-live-worker-detail">
          {task.noLiveWorker.outsideRouting ? (
            <>
              Workers online offer the handler <span className="font-mono">{task.handler}</span>, but the job&apos;s routing (node group, labels or
              nodes) allows none of them, so none claims this task: it starts as soon as a worker that the routing allows and that has the handler
              comes online.{' '}
            </>
          ) : (
            <>
              No worker online offers the handler <span className="font-mono">{task.handler}</span>, so none claims this task: it starts as soon as a
              worker that has the handler comes online (a handler module is loaded with <span className="font-mono">TICKFLOW_HANDLERS</span>).{' '}
            </>
          )}
          {task.noLiveWorker.outsideRouting ? null : task.noLiveWorker.lastOfferedAt ? (
            <>
              A worker last offered it at <ZonedTime value={task.noLiveWorker.lastOfferedAt} />.
            </>
          ) : (
            'No registered worker has offered it.'
          )}
        </p>
      ) : null}
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
                    <span className="text-zinc-500">→</span>
                    <StatusBadge status={l.toStatus} />
                    {/* the glossary's word, as the tasks table and the graph write it ("attempt 2"), not a bare "#2" */}
                    {noAttempt ? null : <span className="text-zinc-500" data-testid="task-log-attempt">attempt {l.attempt}</span>}
                    <ZonedTime value={l.createdAt} ms className="ml-auto font-mono text-[11px] text-zinc-500" />
                  </div>
                  {l.message ? <p className="mt-0.5 break-words text-xs text-zinc-700">{l.message}</p> : null}
                  <NodeNote log={l} />
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

/** "on <node>" under a state change, unless its message already names that worker (taskLogNodeNote). */
function NodeNote({ log }: { log: TaskLogView }) {
  const node = taskLogNodeNote(log);
  return node ? <p className="text-[11px] text-zinc-500" data-testid="task-log-node">on {node}</p> : null;
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
  if (output == null) return <p className="text-xs text-zinc-500">No output captured.</p>;
  const o = output as Record<string, unknown>;
  if (typeof o === 'object' && ('stdout' in o || 'stderr' in o)) {
    const { stdout, stderr, ...rest } = o;
    return (
      <div className="space-y-2">
        <Pre label="stdout" text={lineText(String(stdout ?? ''))} />
        {stderr ? <Pre label="stderr" text={lineText(String(stderr))} tone="err" /> : null}
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
  if (isEmpty && empty) return <p className="text-xs text-zinc-500">{empty}</p>;
  return <pre className="max-h-80 overflow-auto rounded-md border border-zinc-200 bg-zinc-50 p-2 font-mono text-xs whitespace-pre-wrap text-zinc-800" data-testid="json-block">{JSON.stringify(value, null, 2)}</pre>;
}
