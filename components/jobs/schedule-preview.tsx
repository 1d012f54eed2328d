'use client';

import * as React from 'react';
import { useQuery } from '@tanstack/react-query';
import { formatDateTime, formatUtc } from '@/lib/time/format';
import { Skeleton } from '../ui/skeleton';
import { isValidTimeZone } from '@/lib/schedule/timezone';
import { ERROR_PAUSE_MS, PREVIEW_DEBOUNCE_MS, previewErrorText } from './schedule-preview-model';
import { previewScheduleAction } from '@/app/(console)/jobs/actions';

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

/** The job's effective window as UTC ISO instants (either may be missing). */
export type PreviewWindow = { startAt?: string | null; endAt?: string | null };

/** What the preview is of: a cron expression, or an interval in seconds (as typed). */
export type PreviewSchedule = { cron: string } | { intervalSeconds: string };

// Asked through a server action (the domain function of GET /api/v1/schedule/preview): a refused input comes back
// as data, so an expression being typed never makes the browser log a failed request.
async function fetchPreview(schedule: PreviewSchedule, tz: string, window: PreviewWindow, stagger: { jobId: string; staggerSeconds: string } | null, jobCreatedAt: string | null): Promise<PreviewResponse> {
  const query: Record<string, string> = { ...schedule, tz, count: '5', ...(stagger ?? {}) };
  // a saved interval job without a window start is anchored at its creation (the tick's anchor), not at now
  if (jobCreatedAt && 'intervalSeconds' in schedule) query.createdAt = jobCreatedAt;
  if (window.startAt) query.startAt = window.startAt;
  if (window.endAt) query.endAt = window.endAt;
  const r = await previewScheduleAction(query);
  if (!r.ok) throw new Error(previewErrorText({ message: r.error, fields: r.fields }, 400));
  return r.data;
}

/**
 * Live "next 5 fire times" for a cron expression in a zone, or for an interval (anchored at the window's start,
 * else at a saved job's creation, `jobCreatedAt`, as the tick anchors it, else at now: as if the job were saved now), inside the job's effective window (`startAt..endAt`, the same
 * rule the tick applies), from previewScheduleAction (GET /api/v1/schedule/preview's domain function), asked for PREVIEW_DEBOUNCE_MS after the
 * user stops typing and only for a zone the server accepts (a half-typed zone waits, calmly: the Time zone
 * field says why). A failed preview shows as an error, naming its field, only once the inputs have stayed
 * unchanged for ERROR_PAUSE_MS; until then the last good fire times stay, dimmed. Each time is shown in the
 * job's zone and in UTC. With a stagger (`staggerSeconds` as typed, a whole number above 0): for a saved job (`jobId`)
 * they are its due instants, slot + the offset hashed from its id, as the job page lists them; for a new job, which has
 * no id yet, the slots, and the heading says each fires later by the job's offset (README "Window and stagger").
 */
export function FireTimesPreview({ schedule, timezone, window = {}, staggerSeconds, jobId, jobCreatedAt }: { schedule: PreviewSchedule; timezone: string; window?: PreviewWindow; staggerSeconds?: string; jobId?: string; jobCreatedAt?: string }) {
  const liveTz = timezone.trim() || 'UTC';
  const isCron = 'cron' in schedule;
  const liveValue = (isCron ? schedule.cron : schedule.intervalSeconds).trim();
  const value = useDebounced(liveValue, PREVIEW_DEBOUNCE_MS);
  const tz = useDebounced(liveTz, PREVIEW_DEBOUNCE_MS);
  const w = useDebounced(window, PREVIEW_DEBOUNCE_MS);
  const staggerLive = staggerSeconds?.trim() ?? '';
  const staggerTyped = /^\d+$/.test(staggerLive) && Number(staggerLive) > 0 && Number(staggerLive) <= 86400 ? String(Number(staggerLive)) : null;
  const stagger = useDebounced(jobId && staggerTyped ? staggerTyped : null, PREVIEW_DEBOUNCE_MS);
  const zoneReady = isValidTimeZone(liveTz);
  const asSchedule = (v: string): PreviewSchedule => (isCron ? { cron: v } : { intervalSeconds: v });
  const q = useQuery({
    queryKey: ['schedule-preview', isCron ? 'cron' : 'interval', value, tz, w.startAt ?? null, w.endAt ?? null, jobId ?? null, stagger, jobCreatedAt ?? null],
    queryFn: () => fetchPreview(asSchedule(value), tz, w, jobId && stagger ? { jobId, staggerSeconds: stagger } : null, jobCreatedAt ?? null),
    enabled: value.length > 0 && isValidTimeZone(tz),
    retry: false,
    staleTime: 30_000,
  });
  // An error is only an error once the user has paused on the inputs it is about.
  const inputs = JSON.stringify([isCron, liveValue, liveTz, window.startAt ?? null, window.endAt ?? null]);
  const asked = JSON.stringify([isCron, value, tz, w.startAt ?? null, w.endAt ?? null]);
  const paused = useDebounced(inputs, ERROR_PAUSE_MS) === inputs;
  const [lastGood, setLastGood] = React.useState<{ times: string[]; tz: string } | null>(null);
  React.useEffect(() => {
    if (q.data) setLastGood({ times: q.data.fireTimes, tz });
  }, [q.data, tz]);
  return (
    <div className="rounded-md border border-zinc-200 bg-zinc-50/60 p-3" data-testid="cron-preview">
      <p className="mb-2 text-xs font-medium text-zinc-600">
        Next 5 fire times{window.startAt || window.endAt ? ' in the effective window' : ''}
        {staggerTyped && !jobId ? <span data-testid="cron-preview-stagger">{` — slots: with the stagger, each fires at the job's fixed offset of under ${staggerTyped} s after its slot (set when the job is saved)`}</span> : null}
        {staggerTyped && jobId ? <span data-testid="cron-preview-stagger">{` — with the job's stagger offset`}</span> : null}
      </p>
      {!liveValue ? (
        <p className="text-xs text-zinc-500">{isCron ? 'Type a cron expression to preview when it fires.' : 'Type an interval to preview when it fires.'}</p>
      ) : !zoneReady ? (
        <p className="text-xs text-zinc-500" data-testid="cron-preview-waiting">The preview waits for a complete time zone (see the Time zone field).</p>
      ) : q.isSuccess ? (
        q.data.fireTimes.length === 0 ? (
          <p className="text-xs text-zinc-500">{w.endAt ? 'This schedule never fires again inside the effective window.' : 'This schedule never fires again.'}</p>
        ) : (
          <FireTimesTable times={q.data.fireTimes} timeZone={tz} />
        )
      ) : q.isError && paused && asked === inputs ? (
        <p className="text-xs text-red-600" role="alert" data-testid="cron-preview-error">{q.error.message}</p>
      ) : lastGood ? (
        <div className="opacity-50" aria-busy="true">
          <FireTimesTable times={lastGood.times} timeZone={lastGood.tz} />
        </div>
      ) : (
        <div className="space-y-1.5" aria-busy="true">{Array.from({ length: 5 }, (_, i) => <Skeleton key={i} className="h-4 w-full" />)}</div>
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
