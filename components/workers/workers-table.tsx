'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Server, CircleStop, Play } from 'lucide-react';
import type { WorkerView } from '@/lib/workers/list-workers';
import { isGone } from '@/lib/workers/node-status';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/dialog';
import { DataTable } from '../ui/data-table';
import { EmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { RelativeTime, ZonedTime, formatDuration } from '../time';
import { getJson } from '../api';

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
 * Worker nodes (live from GET /api/v1/workers every 5 s): status (a stale heartbeat
 * shows as `stale`; a stopped or offline node says when and how, StatusDetail), heartbeat age, running tasks, load, handlers, group/labels, Drain
 * (the last online worker's dialog names the consequence) and Resume (undoes a drain).
 */
export function WorkersTable({
  initial,
  drain,
  resume,
}: {
  initial: WorkerView[];
  drain: (nodeId: string, input?: { confirmLastWorker?: boolean }) => Promise<R<{ status: string }>>;
  resume: (nodeId: string) => Promise<R<{ status: string }>>;
}) {
  const qc = useQueryClient();
  const { toast } = useToast();
  const q = useQuery({
    queryKey: ['workers'],
    queryFn: ({ signal }) => getJson<{ items: WorkerView[] }>('/api/v1/workers', signal).then((r) => r.items),
    initialData: initial,
    refetchInterval: 5_000,
  });
  const rows = q.data ?? [];
  const onlineCount = rows.filter((w) => w.effectiveStatus === 'online').length;
  if (rows.length === 0) return <EmptyState icon={<Server />} title="No workers have registered" description="Start one with `npm run worker` (npm start runs one next to the console)." />;
  return (
    <DataTable
      testId="workers-table"
      rows={rows}
      rowKey={(w) => w.nodeId}
      rowProps={() => ({ 'data-testid': 'worker-row' })}
      columns={[
        {
          key: 'node',
          header: 'Node',
          cell: (w) => (
            <>
              <div className="font-mono text-xs">{w.name || w.nodeId}</div>
              <div className="text-[11px] text-zinc-500">
                {w.host} · pid {w.pid}
                {w.version ? ` · v${w.version}` : ''}
              </div>
            </>
          ),
        },
        {
          key: 'status',
          header: 'Status',
          className: 'max-w-[14rem]',
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
          className: 'whitespace-nowrap text-xs',
          title: (w) => w.lastHeartbeatAt,
          cell: (w) => (
            // a stopped or offline node's last heartbeat is history, not a warning
            <span className={isGone(w.status) ? 'text-zinc-500' : w.heartbeatAgeSeconds > 30 ? 'text-amber-700' : 'text-zinc-700'}>{w.heartbeatAgeSeconds < 120 ? `${w.heartbeatAgeSeconds}s` : formatDuration(w.heartbeatAgeSeconds * 1000)} ago</span>
          ),
        },
        { key: 'running', header: 'Running', className: 'tabular-nums', cell: (w) => w.runningTasks },
        {
          key: 'load',
          header: 'Load / CPU / Mem',
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
          className: 'max-w-[22rem]',
          cell: (w) => (
            <div className="flex flex-wrap gap-1">
              {w.handlers.map((h) => (
                <Tag key={h} mono>
                  {h}
                </Tag>
              ))}
            </div>
          ),
        },
        {
          key: 'started',
          header: 'Started',
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
          className: 'text-right',
          cell: (w) => {
            const last = w.effectiveStatus === 'online' && onlineCount <= 1;
            if (w.status === 'online')
              return (
                <RoleGate>
                  <ConfirmDialog
                    trigger={
                      <Button size="sm">
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
                      else toast({ kind: 'error', title: 'Drain failed', description: r.error });
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
                    onClick={async () => {
                      const r = await resume(w.nodeId);
                      if (r.ok) toast({ kind: 'success', title: 'Worker resumed' });
                      else toast({ kind: 'error', title: 'Resume failed', description: r.error });
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
  );
}
