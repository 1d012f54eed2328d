import type { Metadata } from 'next';
import Link from 'next/link';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { pageErrorMessage } from '@/app/_lib/page-error';
import { ALARM_STATUSES, ALARM_TYPES, type AlarmStatus, type AlarmType } from '@/lib/alarms/config';
import { listAlarms } from '@/lib/alarms/list-alarms';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { FilterBar } from '@/components/filter-bar';
import { DataTable } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorPanel } from '@/components/error-panel';
import { RelativeTime } from '@/components/time';
import { cn } from '@/components/ui/cn';
import { sendTestAlarmAction } from './actions';
import { SendTestAlarmButton } from './send-test-alarm-button';
import { AutoRefresh } from '@/components/auto-refresh';

export const metadata: Metadata = { title: 'Alarms' };
export const dynamic = 'force-dynamic';

type SP = { type?: string; status?: string; jobId?: string; before?: string };

const STATUS_TONE: Record<string, string> = {
  pending: 'bg-amber-50 text-amber-800 ring-amber-600/20',
  sent: 'bg-emerald-50 text-emerald-800 ring-emerald-600/20',
  failed: 'bg-red-50 text-red-800 ring-red-600/20',
};

/**
 * /alarms: every alarm delivery (one row per channel) newest first, filtered by type, status
 * and job; "Send test alarm" for operators. Collapsed repeats show their count.
 */
export default async function AlarmsPage({ searchParams }: { searchParams: Promise<SP> }) {
  await requireActor('viewer');
  const sp = await searchParams;
  const type = (ALARM_TYPES as readonly string[]).includes(sp.type ?? '') ? (sp.type as AlarmType) : undefined;
  const status = (ALARM_STATUSES as readonly string[]).includes(sp.status ?? '') ? (sp.status as AlarmStatus) : undefined;
  let result: Awaited<ReturnType<typeof listAlarms>> | null = null;
  let error: string | null = null;
  try {
    const before = sp.before && !Number.isNaN(Date.parse(sp.before)) ? sp.before : undefined;
    result = await listAlarms(getDb(), { type, status, jobId: sp.jobId?.trim() || undefined, before, limit: 50 });
  } catch (e) {
    error = pageErrorMessage(e, 'Could not load alarms');
  }
  const keep = Object.fromEntries(Object.entries({ type: sp.type, status: sp.status, jobId: sp.jobId }).filter(([, v]) => v)) as Record<string, string>;
  return (
    <>
      {/* New deliveries and their retries show up without a reload. */}
      <AutoRefresh seconds={10} />
      <PageHeader title="Alarms" description="Failure, timeout, dead-letter, success and node-offline alarms, one row per delivery channel." actions={<SendTestAlarmButton action={sendTestAlarmAction} />} />
      <Card className="overflow-hidden">
        <FilterBar
          filters={[
            { kind: 'select', name: 'type', label: 'Type', options: ALARM_TYPES.map((t) => ({ value: t, label: t.replace('_', ' ') })) },
            { kind: 'select', name: 'status', label: 'Status', options: ALARM_STATUSES.map((s) => ({ value: s, label: s })) },
            { kind: 'search', name: 'jobId', label: 'Job id', placeholder: 'Job id' },
          ]}
        />
        {error ? (
          <ErrorPanel message={error} />
        ) : !result || result.items.length === 0 ? (
          <EmptyState title="No alarms" description={Object.keys(keep).length ? 'Nothing matches these filters.' : 'Alarms appear here when a job with alarms configured fails, times out, succeeds (opt-in) or is dead-lettered, or a worker goes offline.'} />
        ) : (
          <div className="overflow-x-auto">
            <DataTable
              testId="alarms-table"
              scroll={false}
              rows={result.items}
              rowKey={(a) => a.id}
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
                        <Link className="font-mono text-indigo-700 hover:underline" href={`/jobs/${a.jobId}`}>
                          {a.jobKey ?? a.jobId.slice(0, 8)}
                        </Link>
                      ) : (
                        <span className="text-zinc-400">global</span>
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
                      <div className="line-clamp-2 break-words">{a.message}</div>
                      {a.error ? <div className="mt-0.5 line-clamp-2 break-words text-xs text-red-700">{a.error}</div> : null}
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
                      {a.target ? <div className="max-w-[16rem] truncate font-mono text-zinc-500" title={a.target}>{a.target}</div> : null}
                    </>
                  ),
                },
                {
                  key: 'status',
                  header: 'Status',
                  className: 'whitespace-nowrap align-top',
                  cell: (a) => (
                    <>
                      <span className={cn('inline-flex items-center rounded-md px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset', STATUS_TONE[a.status])}>{a.status}</span>
                      {a.status === 'pending' && a.attempts > 0 ? (
                        <div className="mt-0.5 text-[11px] text-zinc-500">
                          retry <RelativeTime value={a.nextAttemptAt} />
                        </div>
                      ) : null}
                    </>
                  ),
                },
                { key: 'count', header: 'Count', headerClassName: 'text-right', className: 'align-top text-right tabular-nums', cell: (a) => a.count },
                { key: 'attempts', header: 'Attempts', headerClassName: 'text-right', className: 'align-top text-right tabular-nums', cell: (a) => a.attempts },
              ]}
            />
            {result.nextBefore ? (
              <div className="border-t border-zinc-100 px-3 py-2 text-right text-xs">
                <Link className="text-indigo-700 hover:underline" href={`/alarms?${new URLSearchParams({ ...keep, before: result.nextBefore })}`}>
                  Older alarms →
                </Link>
              </div>
            ) : null}
          </div>
        )}
      </Card>
    </>
  );
}
