'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Server, CircleStop, Play } from 'lucide-react';
import type { WorkerView } from '@/lib/workers/list-workers';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/dialog';
import { EmptyState } from '../ui/empty-state';
import { useToast } from '../ui/toast';
import { RoleGate } from '../role';
import { StatusBadge, Tag } from '../status-badge';
import { RelativeTime, formatDuration } from '../time';
import { getJson } from '../api';

type R<T> = { ok: true; data: T } | { ok: false; error: string };

/** Same words as lib/workers drain-worker LAST_WORKER_CONSEQUENCE (the server refuses without the confirmation). */
const LAST_WORKER_CONSEQUENCE = 'no schedule fires and no task runs until a worker is resumed or another one starts';

/**
 * Worker nodes (live from GET /api/v1/workers every 5 s): status (a stale heartbeat
 * shows as `stale`), heartbeat age, running tasks, load, handlers, group/labels, Drain
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
    <div className="overflow-x-auto">
      <table className="tf-table" data-testid="workers-table">
        <thead>
          <tr>
            <th>Node</th>
            <th>Status</th>
            <th>Heartbeat</th>
            <th>Running</th>
            <th>Load / CPU / Mem</th>
            <th>Group / labels</th>
            <th>Handlers</th>
            <th>Up since</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((w) => (
            <tr key={w.nodeId} data-testid="worker-row">
              <td>
                <div className="font-mono text-xs">{w.name || w.nodeId}</div>
                <div className="text-[11px] text-zinc-500">
                  {w.host} · pid {w.pid}
                  {w.version ? ` · v${w.version}` : ''}
                </div>
              </td>
              <td>
                <StatusBadge status={w.effectiveStatus} />
              </td>
              <td className="whitespace-nowrap text-xs" title={w.lastHeartbeatAt}>
                <span className={w.heartbeatAgeSeconds > 30 ? 'text-amber-700' : 'text-zinc-700'}>{w.heartbeatAgeSeconds < 120 ? `${w.heartbeatAgeSeconds}s` : formatDuration(w.heartbeatAgeSeconds * 1000)} ago</span>
              </td>
              <td className="tabular-nums">{w.runningTasks}</td>
              <td className="whitespace-nowrap text-xs text-zinc-600 tabular-nums">
                {w.load1 != null ? w.load1.toFixed(2) : '—'} / {w.cpuPercent != null ? `${Math.round(w.cpuPercent)}%` : '—'} / {w.memoryMb != null ? `${Math.round(w.memoryMb)} MB` : '—'}
              </td>
              <td className="text-xs">
                <Tag>{w.group}</Tag>{' '}
                {Object.entries(w.labels).map(([k, v]) => (
                  <Tag key={k} mono className="mr-1">
                    {k}={v}
                  </Tag>
                ))}
              </td>
              <td className="max-w-[22rem]">
                <div className="flex flex-wrap gap-1">
                  {w.handlers.map((h) => (
                    <Tag key={h} mono>
                      {h}
                    </Tag>
                  ))}
                </div>
              </td>
              <td className="whitespace-nowrap text-xs text-zinc-500">
                <RelativeTime value={w.startedAt} />
              </td>
              <td className="text-right">
                {w.status === 'online' ? (
                  <RoleGate>
                    <ConfirmDialog
                      trigger={
                        <Button size="sm">
                          <CircleStop /> Drain
                        </Button>
                      }
                      danger={w.effectiveStatus === 'online' && onlineCount <= 1}
                      title={w.effectiveStatus === 'online' && onlineCount <= 1 ? `Drain the last online worker, ${w.name || w.nodeId}?` : `Drain ${w.name || w.nodeId}?`}
                      description={
                        w.effectiveStatus === 'online' && onlineCount <= 1
                          ? `This is the last online worker: after draining it, ${LAST_WORKER_CONSEQUENCE}. Running tasks finish.`
                          : 'The worker finishes the tasks it is running and claims no new ones. Resume undoes it.'
                      }
                      confirmLabel={w.effectiveStatus === 'online' && onlineCount <= 1 ? 'Drain the last worker' : 'Drain'}
                      onConfirm={async () => {
                        const r = await drain(w.nodeId, { confirmLastWorker: w.effectiveStatus === 'online' && onlineCount <= 1 });
                        if (r.ok) toast({ kind: 'success', title: 'Worker draining' });
                        else toast({ kind: 'error', title: 'Drain failed', description: r.error });
                        await qc.invalidateQueries({ queryKey: ['workers'] });
                      }}
                    />
                  </RoleGate>
                ) : w.status === 'draining' ? (
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
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
