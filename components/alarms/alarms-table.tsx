'use client';

import { focusSlot } from '../ui/focus-return';
import * as React from 'react';
import { Link } from '@/components/ui/link';
import { JobNameLink } from '../jobs/job-name-link';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, BellOff, Check } from 'lucide-react';
import type { AlarmView } from '@/lib/alarms/list-alarms';
import { Button } from '../ui/button';
import { DataTable } from '../ui/data-table';
import { ListEmptyState } from '../ui/empty-state';
import { RoleGate } from '../role';
import { RelativeTime, ZonedTime } from '../time';
import { useDisplayZone } from '../display-zone';
import { zonedInstantsInText } from '@/lib/time/format';
import { cn } from '../ui/cn';
import { getJson } from '../api';
import { AcknowledgeDialog, SilenceDialog, type AckAction, type SilenceAction } from './alarm-dialogs';

const STATUS_TONE: Record<string, string> = {
  pending: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  sent: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  failed: 'bg-red-50 text-red-800 ring-red-600/20',
  silenced: 'bg-zinc-100 text-zinc-700 ring-zinc-500/20',
};

export type AlarmsPage = { items: AlarmView[]; nextCursor: string | null };

/**
 * The Silence button's accessible name: what the row shows the operator (the alarm's type and its job), with the
 * button's own text first, never the alarm's id, which no screen shows.
 */
export function silenceLabel(a: Pick<AlarmView, 'type' | 'jobId' | 'jobKey'>): string {
  const type = a.type.replace('_', ' ');
  return a.jobId ? `Silence… ${type} alarms of job ${a.jobKey ?? a.jobId.slice(0, 8)}` : `Silence… ${type} alarms (global)`;
}

/**
 * The alarms table, live from GET /api/v1/alarms (same filters as the page's URL) every 5 s:
 * type, job / run, message, channel, status (a silenced alarm names its silence), who
 * acknowledged it, and per row Acknowledge and Silence (operator+; viewers see them disabled
 * with the reason). Empty, it tells filters that match nothing (`filtered`, Clear filters to `clearHref`)
 * from no alarms at all.
 */
export function AlarmsTable({ initial, query, acknowledge, silence, filtered, clearHref }: { initial: AlarmsPage; query: string; acknowledge: AckAction; silence: SilenceAction; filtered: boolean; clearHref: string }) {
  const zone = useDisplayZone();
  const qc = useQueryClient();
  const q = useQuery({
    queryKey: ['alarms', query],
    queryFn: ({ signal }) => getJson<AlarmsPage>(`/api/v1/alarms?${query}`, signal),
    initialData: initial,
    refetchInterval: 5_000,
  });
  const [ackFor, setAckFor] = React.useState<AlarmView | null>(null);
  const [silenceFor, setSilenceFor] = React.useState<AlarmView | null>(null);
  const refresh = () => {
    void qc.invalidateQueries({ queryKey: ['alarms'] });
    void qc.invalidateQueries({ queryKey: ['alarm-silences'] });
  };
  const page = q.data ?? initial;
  if (page.items.length === 0)
    return (
      <ListEmptyState
        icon={<Bell />}
        noun="alarms"
        filtered={filtered}
        clearHref={clearHref}
        empty={{ title: 'No alarms yet', description: 'Alarms appear here when a job with alarms configured fails, times out, succeeds (opt-in) or is dead-lettered, or a worker goes offline.' }}
      />
    );
  return (
    <>
      <DataTable
        testId="alarms-table"
        rows={page.items}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-testid': 'alarm-row', 'data-alarm-id': a.id, 'data-status': a.status })}
        columns={[
          { key: 'raised', header: 'Raised', className: 'whitespace-nowrap align-top text-zinc-600', cell: (a) => <RelativeTime value={a.createdAt} /> },
          {
            key: 'type',
            header: 'Type',
            className: 'whitespace-nowrap align-top',
            cell: (a) => (
              <>
                <span className={cn('font-medium', a.level === 'error' ? 'text-red-700' : a.level === 'warning' ? 'text-amber-700' : 'text-zinc-700')}>{a.type.replace('_', ' ')}</span>
                {a.content.test === true ? <span className="ml-1 rounded bg-zinc-100 px-1 text-[11px] text-zinc-600">test</span> : null}
              </>
            ),
          },
          {
            key: 'job',
            header: 'Job / run',
            className: 'align-top text-xs',
            cell: (a) => (
              <>
                {a.jobId ? (
                  <JobNameLink jobId={a.jobId} jobKey={a.jobKey ?? a.jobId.slice(0, 8)} purged={a.jobPurged} className="font-mono text-indigo-700 hover:underline" />
                ) : (
                  <span className="text-zinc-500">global</span>
                )}
                {a.runId ? (
                  <div>
                    <Link className="font-mono text-zinc-500 hover:underline" href={`/runs/${a.runId}`}>
                      run {a.runId.slice(0, 8)}
                    </Link>
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: 'message',
            header: 'Message',
            className: 'max-w-md align-top text-zinc-800',
            cell: (a) => (
              <>
                {/* two lines keep the rows even; the whole text is the tooltip (a screen reader reads it all anyway) */}
                <div className="line-clamp-2 [overflow-wrap:anywhere]" title={zonedInstantsInText(a.message, zone)} data-testid="alarm-message">
                  {zonedInstantsInText(a.message, zone)}
                </div>
                {a.error ? (
                  <div className="mt-0.5 line-clamp-2 text-xs text-red-700 [overflow-wrap:anywhere]" title={a.error}>
                    {a.error}
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: 'channel',
            header: 'Channel',
            className: 'align-top text-xs',
            cell: (a) => (
              <>
                <span className="font-medium text-zinc-700">{a.channel}</span>
                {a.target ? (
                  <div className="max-w-[16rem] truncate font-mono text-zinc-500" title={a.target}>
                    {a.target}
                  </div>
                ) : null}
              </>
            ),
          },
          {
            key: 'status',
            header: 'Status',
            className: 'whitespace-nowrap align-top',
            cell: (a) => (
              <>
                <span data-testid="alarm-status" className={cn('inline-flex items-center rounded-md px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset', STATUS_TONE[a.status])}>
                  {a.status}
                </span>
                {a.status === 'pending' && a.attempts > 0 ? (
                  <div className="mt-0.5 text-[11px] text-zinc-500">
                    retry <RelativeTime value={a.nextAttemptAt} />
                  </div>
                ) : null}
                {a.silence ? <div className="mt-0.5 text-[11px] text-zinc-500">silenced by {a.silence.createdBy}</div> : null}
              </>
            ),
          },
          { key: 'count', header: 'Count', headerClassName: 'text-right', className: 'align-top text-right tabular-nums', cell: (a) => a.count },
          {
            key: 'ack',
            header: 'Acknowledged',
            className: 'align-top text-xs',
            cell: (a) =>
              a.acknowledgedBy ? (
                <div data-testid="alarm-ack">
                  <div className="font-medium text-zinc-700">
                    <Check className="mr-0.5 inline size-3 text-emerald-600" />
                    {a.acknowledgedBy}
                  </div>
                  <div className="text-zinc-500">
                    <ZonedTime value={a.acknowledgedAt} />
                  </div>
                  {a.ackNote ? <div className="mt-0.5 max-w-[14rem] break-words text-zinc-600">“{a.ackNote}”</div> : null}
                </div>
              ) : (
                <RoleGate>
                  <Button size="sm" onClick={() => setAckFor(a)} {...focusSlot(`alarm-${a.id}`)}>
                    Acknowledge
                  </Button>
                </RoleGate>
              ),
          },
          {
            key: 'silence',
            header: '',
            className: 'align-top',
            cell: (a) => (
              <RoleGate>
                <Button size="sm" variant="ghost" onClick={() => setSilenceFor(a)} aria-label={silenceLabel(a)} {...focusSlot(`alarm-${a.id}`)}>
                  <BellOff /> Silence…
                </Button>
              </RoleGate>
            ),
          },
        ]}
      />
      {page.nextCursor ? (
        <div className="border-t border-zinc-100 px-3 py-2 text-right text-xs">
          <Link className="text-indigo-700 hover:underline" href={`/alarms?${new URLSearchParams({ ...Object.fromEntries(new URLSearchParams(query)), cursor: page.nextCursor })}`}>
            Older alarms →
          </Link>
        </div>
      ) : null}
      <AcknowledgeDialog alarm={ackFor} onClose={() => setAckFor(null)} action={acknowledge} onDone={refresh} />
      <SilenceDialog alarm={silenceFor} onClose={() => setSilenceFor(null)} action={silence} onDone={refresh} />
    </>
  );
}
