'use client';

import { focusSlot } from '../ui/focus-return';
import * as React from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { ChevronRight, Server, CircleStop, Play } from 'lucide-react';
import type { WorkerList, WorkerView } from '@/lib/workers/list-workers';
import { isGone } from '@/lib/workers/node-status';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/dialog';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { RelativeTime, ZonedTime, formatDuration, instantTitle } from '../time';
import { useDisplayZone } from '../display-zone';
import { zonedInstantsInText } from '@/lib/time/format';
import { getJson } from '../api';
import { cn } from '../ui/cn';

type R<T> = { ok: true; data: T } | { ok: false; error: string };

/** Same words as lib/workers drain-worker LAST_WORKER_CONSEQUENCE (the server refuses without the confirmation). */
const LAST_WORKER_CONSEQUENCE = 'no schedule fires and no task runs until a worker is resumed or another one starts';

/**
 * Under the status badge, how a node that is not plainly online got where it is
 * (docs/operations.md "Stopped or offline"): stopped cleanly (signal, time), heartbeat
 * lost (offline since its last heartbeat), or a stale heartbeat the reaper has not judged yet.
 */
function StatusDetail({ w }: { w: WorkerView }) {
  const cls = 'mt-0.5 text-[11px] leading-snug text-zinc-500';
  if (w.effectiveStatus === 'stopped')
    return (
      <div className={cls} data-testid="worker-status-detail">
        stopped cleanly{w.stopSignal ? ` on ${w.stopSignal}` : ''} at <ZonedTime value={w.stoppedAt ?? w.lastHeartbeatAt} />
      </div>
    );
  if (w.effectiveStatus === 'offline')
    return (
      <div className={cls} data-testid="worker-status-detail">
        heartbeat lost (crash, kill -9 or machine gone): offline since <ZonedTime value={w.lastHeartbeatAt} />
      </div>
    );
  if (w.effectiveStatus === 'stale')
    return (
      <div className={cls} data-testid="worker-status-detail">
        no heartbeat since <ZonedTime value={w.lastHeartbeatAt} />: the reaper marks it offline if none comes
      </div>
    );
  return null;
}

/**
 * A worker's handlers: their chips in the table; below 768 px, where the chips made a row very tall, their count, a
 * button that shows or hides them.
 */
function HandlerChips({ handlers }: { handlers: string[] }) {
  const [open, setOpen] = React.useState(false);
  const id = React.useId();
  return (
    <>
      <button type="button" className="inline-flex items-center gap-1 text-xs text-zinc-600 md:hidden" aria-expanded={open} aria-controls={id} onClick={() => setOpen((o) => !o)} data-testid="worker-handlers-toggle">
        <ChevronRight className={cn('size-3.5 transition-transform', open && 'rotate-90')} aria-hidden />
        {handlers.length} {handlers.length === 1 ? 'handler' : 'handlers'}
      </button>
      <div id={id} className={cn('flex flex-wrap gap-1', open ? 'max-md:mt-1' : 'max-md:hidden')}>
        {handlers.map((h) => (
          <Tag key={h} mono>
            {h}
          </Tag>
        ))}
      </div>
    </>
  );
}

/**
 * Worker nodes (live from GET /api/v1/workers every 5 s): status (a stale heartbeat
 * shows as `stale`; a stopped or offline node says when and how, StatusDetail), heartbeat age, running tasks, load, handlers, group/labels, Drain
 * (the last online worker's dialog names the consequence) and Resume (undoes a drain). Below 768 px each worker is a
 * card (DataTable `stack`): name and Drain / Resume on its first line, the status under them, the figures after their
 * labels, the handlers as a count that opens their list.
 */
export function WorkersTable({
  initial,
  drain,
  resume,
}: {
  initial: WorkerList;
  drain: (nodeId: string, input?: { confirmLastWorker?: boolean }) => Promise<R<{ status: string }>>;
  resume: (nodeId: string) => Promise<R<{ status: string }>>;
}) {
  const qc = useQueryClient();
  const { toast } = useToast();
  const displayZone = useDisplayZone();
  const q = useQuery({
    queryKey: ['workers'],
    queryFn: ({ signal }) => getJson<WorkerList>('/api/v1/workers', signal),
    initialData: initial,
    refetchInterval: 5_000,
  });
  const rows = q.data?.items ?? [];
  const endedNotListed = q.data?.endedNotListed ?? 0;
  const onlineCount = rows.filter((w) => w.effectiveStatus === 'online').length;
  if (rows.length === 0) return <EmptyState icon={<Server />} title="No workers have registered" description="Start one with `npm run worker` (npm start runs one next to the console)." />;
  return (
    <>
    <DataTable
      testId="workers-table"
      stack
      rows={rows}
      rowKey={(w) => w.nodeId}
      rowProps={() => ({ 'data-testid': 'worker-row' })}
      columns={[
        {
          key: 'node',
          header: 'Node',
          // on a card: first, beside its actions (order -1), cut to the width they leave
          className: 'max-md:-order-2 max-md:min-w-0 max-md:flex-1',
          cell: (w) => (
            <>
              <div className="font-mono text-xs max-md:truncate">{w.name || w.nodeId}</div>
              <div className="text-[11px] text-zinc-500 max-md:truncate">
                {w.host} · pid {w.pid}
                {w.version ? ` · v${w.version}` : ''}
              </div>
            </>
          ),
        },
        {
          key: 'status',
          header: 'Status',
          className: 'max-w-[14rem] max-md:max-w-none max-md:basis-full',
          cell: (w) => (
            <>
              <StatusBadge status={w.effectiveStatus} data-testid="worker-status" />
              <StatusDetail w={w} />
            </>
          ),
        },
        {
          key: 'heartbeat',
          header: 'Heartbeat',
          label: 'heartbeat',
          className: 'whitespace-nowrap text-xs',
          title: (w) => instantTitle(w.lastHeartbeatAt, displayZone),
          cell: (w) => (
            // a stopped or offline node's last heartbeat is history, not a warning
            <span className={isGone(w.status) ? 'text-zinc-500' : w.heartbeatAgeSeconds > 30 ? 'text-amber-700' : 'text-zinc-700'}>{w.heartbeatAgeSeconds < 120 ? `${w.heartbeatAgeSeconds}s` : formatDuration(w.heartbeatAgeSeconds * 1000)} ago</span>
          ),
        },
        // a gone node runs nothing (lib/workers/node-status.ts shownFigures): a dash, as in Load, not its last count
        { key: 'running', header: 'Running', label: 'running', className: 'tabular-nums max-md:text-xs', cell: (w) => (isGone(w.status) ? '—' : w.runningTasks) },
        {
          key: 'load',
          header: 'Load / CPU / Mem',
          label: 'load / CPU / mem',
          className: 'whitespace-nowrap text-xs text-zinc-600 tabular-nums',
          // a gone node's last figures describe a process that no longer runs
          cell: (w) =>
            isGone(w.status) ? (
              '—'
            ) : (
              <>
                {w.load1 != null ? w.load1.toFixed(2) : '—'} / {w.cpuPercent != null ? `${Math.round(w.cpuPercent)}%` : '—'} / {w.memoryMb != null ? `${Math.round(w.memoryMb)} MB` : '—'}
              </>
            ),
        },
        {
          key: 'group',
          header: 'Group / labels',
          label: 'group',
          className: 'text-xs',
          cell: (w) => (
            <>
              <Tag>{w.group}</Tag>{' '}
              {Object.entries(w.labels).map(([k, v]) => (
                <Tag key={k} mono className="mr-1">
                  {k}={v}
                </Tag>
              ))}
            </>
          ),
        },
        {
          key: 'handlers',
          header: 'Handlers',
          className: 'max-w-[22rem] max-md:max-w-none max-md:basis-full',
          cell: (w) => (
            <>
              <HandlerChips handlers={w.handlers} />
              {/* names only: which worker can run a step that names a secret (docs/security.md "Worker secrets") */}
              {w.secretNames.length > 0 ? (
                <p className="mt-1 text-xs text-zinc-500" data-testid="worker-secrets">
                  Secrets: <span className="font-mono">{w.secretNames.join(', ')}</span>
                </p>
              ) : null}
            </>
          ),
        },
        {
          key: 'started',
          header: 'Started',
          label: 'started',
          className: 'whitespace-nowrap text-xs text-zinc-500',
          // a gone node is not up: say how long its process ran (to the clean stop, or to its last heartbeat)
          cell: (w) => (
            <>
              <RelativeTime value={w.startedAt} />
              {isGone(w.status) ? (
                <span data-testid="worker-ran" className="block">
                  ran {formatDuration(Math.max(0, Date.parse(w.stoppedAt ?? w.lastHeartbeatAt) - Date.parse(w.startedAt)))}
                </span>
              ) : null}
            </>
          ),
        },
        {
          key: 'actions',
          header: null,
          className: 'text-right max-md:-order-1',
          cell: (w) => {
            const last = w.effectiveStatus === 'online' && onlineCount <= 1;
            if (w.status === 'online')
              return (
                <RoleGate>
                  <ConfirmDialog
                    trigger={
                      <Button size="sm" {...focusSlot(`worker-drain-resume-${w.nodeId}`)}>
                        <CircleStop /> Drain
                      </Button>
                    }
                    danger={last}
                    title={last ? `Drain the last online worker, ${w.name || w.nodeId}?` : `Drain ${w.name || w.nodeId}?`}
                    description={
                      last
                        ? `This is the last online worker: after draining it, ${LAST_WORKER_CONSEQUENCE}. Running tasks finish.`
                        : 'The worker finishes the tasks it is running and claims no new ones. Resume undoes it.'
                    }
                    confirmLabel={last ? 'Drain the last worker' : 'Drain'}
                    onConfirm={async () => {
                      const r = await drain(w.nodeId, { confirmLastWorker: last });
                      if (r.ok) toast({ kind: 'success', title: 'Worker draining' });
                      else toast({ kind: 'error', title: 'Drain failed', description: zonedInstantsInText(r.error, displayZone) });
                      await qc.invalidateQueries({ queryKey: ['workers'] });
                    }}
                  />
                </RoleGate>
              );
            if (w.status === 'draining')
              return (
                <RoleGate>
                  <Button
                    size="sm"
                    data-testid="resume-worker"
                    {...focusSlot(`worker-drain-resume-${w.nodeId}`)}
                    onClick={async () => {
                      const r = await resume(w.nodeId);
                      if (r.ok) toast({ kind: 'success', title: 'Worker resumed' });
                      else toast({ kind: 'error', title: 'Resume failed', description: zonedInstantsInText(r.error, displayZone) });
                      await qc.invalidateQueries({ queryKey: ['workers'] });
                    }}
                  >
                    <Play /> Resume
                  </Button>
                </RoleGate>
              );
            return null;
          },
        },
      ]}
    />
    {endedNotListed > 0 ? (
      <p className="border-t border-zinc-200 px-4 py-2 text-xs text-zinc-500 dark:border-zinc-800" data-testid="workers-ended-not-listed">
        {endedNotListed.toLocaleString('en-US')} older stopped or offline {endedNotListed === 1 ? 'worker is' : 'workers are'} not listed: they are kept for the node retention (TICKFLOW_NODE_RETENTION_DAYS) as history.
      </p>
    ) : null}
    </>
  );
}
