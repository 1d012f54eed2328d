'use client';

import * as React from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatUtc } from '@/lib/time/format';
import { Skeleton } from '../ui/skeleton';

/** Value after it has stopped changing for `ms` milliseconds. */
export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = React.useState(value);
  React.useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

type PreviewResponse = { fireTimes: string[] };
type PreviewError = { error: { code: string; message: string; fields?: Record<string, string> } };

/** The job's effective window as UTC ISO instants (either may be missing). */
export type PreviewWindow = { startAt?: string | null; endAt?: string | null };

async function fetchPreview(cron: string, tz: string, window: PreviewWindow): Promise<PreviewResponse> {
  const qs = new URLSearchParams({ cron, tz, count: '5' });
  if (window.startAt) qs.set('startAt', window.startAt);
  if (window.endAt) qs.set('endAt', window.endAt);
  const res = await fetch(`/api/v1/schedule/preview?${qs}`, { credentials: 'same-origin', headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as PreviewResponse | PreviewError | null;
  if (!res.ok || !body || !('fireTimes' in body)) {
    const err = body && 'error' in body ? body.error : null;
    const msg = err?.fields ? Object.values(err.fields)[0] : err?.message;
    throw new Error(msg || `Preview failed (${res.status})`);
  }
  return body;
}

/**
 * Live "next 5 fire times" for a cron expression in a zone, inside the job's effective window (`startAt..endAt`,
 * the same rule the tick applies), from GET /api/v1/schedule/preview, re-fetched 300 ms after the user stops
 * typing. Each time is shown in the job's zone and in UTC.
 */
export function CronPreview({ cron, timezone, window = {} }: { cron: string; timezone: string; window?: PreviewWindow }) {
  const c = useDebounced(cron.trim(), 300);
  const tz = useDebounced(timezone.trim() || 'UTC', 300);
  const w = useDebounced(window, 300);
  const q = useQuery({ queryKey: ['schedule-preview', c, tz, w.startAt ?? null, w.endAt ?? null], queryFn: () => fetchPreview(c, tz, w), enabled: c.length > 0, retry: false, staleTime: 30_000 });
  return (
    <div className="rounded-md border border-zinc-200 bg-zinc-50/60 p-3" data-testid="cron-preview">
      <p className="mb-2 text-xs font-medium text-zinc-600">Next 5 fire times{window.startAt || window.endAt ? ' in the effective window' : ''}</p>
      {!c ? (
        <p className="text-xs text-zinc-500">Type a cron expression to preview when it fires.</p>
      ) : q.isPending ? (
        <div className="space-y-1.5">{Array.from({ length: 5 }, (_, i) => <Skeleton key={i} className="h-4 w-full" />)}</div>
      ) : q.isError ? (
        <p className="text-xs text-red-600">{q.error.message}</p>
      ) : q.data.fireTimes.length === 0 ? (
        <p className="text-xs text-zinc-500">{w.endAt ? 'This schedule never fires again inside the effective window.' : 'This schedule never fires again.'}</p>
      ) : (
        <FireTimesTable times={q.data.fireTimes} timeZone={tz} />
      )}
    </div>
  );
}

/** Fire times as two columns: the job's zone and UTC. */
export function FireTimesTable({ times, timeZone }: { times: (string | Date)[]; timeZone: string }) {
  return (
    <table className="w-full text-xs" data-testid="fire-times">
      <thead>
        <tr className="text-left text-zinc-500">
          <th className="pb-1 font-medium">{timeZone}</th>
          {timeZone !== 'UTC' ? <th className="pb-1 font-medium">UTC</th> : null}
        </tr>
      </thead>
      <tbody className="font-mono text-[12px] text-zinc-800">
        {times.map((t) => (
          <tr key={String(t)}>
            <td className="py-0.5">{formatDateTime(t, timeZone)}</td>
            {timeZone !== 'UTC' ? <td className="py-0.5 text-zinc-500">{formatUtc(t)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
