'use client';

import * as React from 'react';
import { usePathname, useRouter } from 'next/navigation';
import { Button } from '../ui/button';
import { Input, NativeSelect } from '../ui/input';
import { ComboFilter, type ComboOption, type ComboSearch } from '../filter-bar';
import { cn } from '../ui/cn';

/** The preset ranges in days. */
export const STATS_RANGES = ['7', '30', '90'] as const;

/** What the stats page shows, as kept in its URL. */
export type StatsView = {
  /** `7` | `30` | `90` | `custom` */
  range: string;
  from: string;
  to: string;
  handler: string;
  /** job id, '' for every job */
  job: string;
  granularity: 'day' | 'hour';
};

const pressed = 'bg-indigo-50 text-indigo-700 ring-1 ring-inset ring-indigo-200';

/**
 * Range, granularity, job and handler filters of the stats page, kept in the URL (`range=7|30|90`, or
 * `from`/`to` for a custom range; `granularity=hour` for the last 48 hours per hour; `job`, `handler`).
 * Dates are calendar days in the stats time zone. The From/To inputs always show the range on screen
 * (a preset fills them in). The job picker is the runs list's searchable job filter (components/filter-bar.tsx).
 */
export function StatsRangeControls({ view, handlers, jobs, searchJobs }: { view: StatsView; handlers: string[]; jobs: ComboOption[]; searchJobs?: ComboSearch }) {
  const { range, from, to, handler, job, granularity } = view;
  const router = useRouter();
  const pathname = usePathname();
  const [pending, start] = React.useTransition();
  const [customFrom, setCustomFrom] = React.useState(from);
  const [customTo, setCustomTo] = React.useState(to);
  // A preset (or any navigation) changes the range the page shows: the inputs follow it.
  React.useEffect(() => {
    setCustomFrom(from);
    setCustomTo(to);
  }, [from, to]);
  const hourly = granularity === 'hour';
  const go = (patch: Partial<Record<'range' | 'from' | 'to' | 'handler' | 'job' | 'granularity', string | undefined>>) => {
    // keep the other filters; a preset drops from/to, a custom range drops the preset
    const base: Record<string, string | undefined> = { ...(range === 'custom' ? { from, to } : { range }), handler: handler || undefined, job: job || undefined, granularity: hourly ? 'hour' : undefined };
    if ('range' in patch) {
      delete base.from;
      delete base.to;
    }
    if ('from' in patch || 'to' in patch) delete base.range;
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries({ ...base, ...patch })) if (v) qs.set(k, v);
    start(() => router.replace(`${pathname}${qs.size ? `?${qs}` : ''}`));
  };
  return (
    <div className="flex flex-wrap items-end gap-3" data-pending={pending || undefined}>
      <div className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
        Per
        <div className="inline-flex rounded-md shadow-xs" role="group" aria-label="Granularity">
          <Button size="sm" aria-pressed={!hourly} className={cn('rounded-none rounded-l-md', !hourly && pressed)} onClick={() => go({ granularity: undefined })}>
            Day
          </Button>
          <Button size="sm" aria-pressed={hourly} className={cn('-ml-px rounded-none rounded-r-md', hourly && pressed)} onClick={() => go({ granularity: 'hour' })}>
            Hour (48 h)
          </Button>
        </div>
      </div>
      {hourly ? (
        <p className="pb-1.5 text-xs text-zinc-500" data-testid="stats-hourly-range">
          Last 48 hours, per hour
        </p>
      ) : (
        <>
          <div className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
            Range
            <div className="inline-flex rounded-md shadow-xs" role="group" aria-label="Range">
              {STATS_RANGES.map((r, i) => (
                <Button key={r} size="sm" aria-pressed={range === r} className={cn('rounded-none', i === 0 && 'rounded-l-md', i > 0 && '-ml-px', range === r && pressed)} onClick={() => go({ range: r })}>
                  {r} days
                </Button>
              ))}
              <Button size="sm" aria-pressed={range === 'custom'} className={cn('-ml-px rounded-none rounded-r-md', range === 'custom' && pressed)} onClick={() => go({ from: customFrom, to: customTo })}>
                Custom
              </Button>
            </div>
          </div>
          <form
            className="flex items-end gap-2"
            onSubmit={(e) => {
              e.preventDefault();
              go({ from: customFrom, to: customTo });
            }}
          >
            <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
              From
              <Input type="date" aria-label="From" className="h-7 w-36 text-xs" value={customFrom} max={customTo} onChange={(e) => setCustomFrom(e.target.value)} />
            </label>
            <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
              To
              <Input type="date" aria-label="To" className="h-7 w-36 text-xs" value={customTo} min={customFrom} onChange={(e) => setCustomTo(e.target.value)} />
            </label>
            <Button size="sm" type="submit">
              Apply
            </Button>
          </form>
        </>
      )}
      <ComboFilter key={`job:${job}`} def={{ kind: 'combobox', name: 'job', label: 'Job', placeholder: 'All jobs: type a job key or name', options: jobs, search: searchJobs }} value={job} onApply={(_, v) => go({ job: v || undefined })} />
      <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
        Handler
        <NativeSelect aria-label="Handler" className="h-7 w-52 text-xs" value={handler} onChange={(e) => go({ handler: e.target.value || undefined })}>
          <option value="">All handlers</option>
          {[...new Set([...handlers, ...(handler ? [handler] : [])])].map((h) => (
            <option key={h} value={h}>
              {h}
            </option>
          ))}
        </NativeSelect>
      </label>
    </div>
  );
}
