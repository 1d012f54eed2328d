'use client';

import * as React from 'react';
import { usePathname, useRouter } from 'next/navigation';
import { Button } from '../ui/button';
import { Input, NativeSelect } from '../ui/input';
import { cn } from '../ui/cn';

/** The preset ranges in days. */
export const STATS_RANGES = ['7', '30', '90'] as const;

/**
 * Range and handler filter for the stats page, kept in the URL (`range=7|30|90`, or
 * `from`/`to` for a custom range, `handler`). Dates are calendar days in the stats time zone.
 */
export function StatsRangeControls({ range, from, to, handler, handlers }: { range: string; from: string; to: string; handler: string; handlers: string[] }) {
  const router = useRouter();
  const pathname = usePathname();
  const [pending, start] = React.useTransition();
  const [customFrom, setCustomFrom] = React.useState(from);
  const [customTo, setCustomTo] = React.useState(to);
  const go = (params: Record<string, string | undefined>) => {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) qs.set(k, v);
    start(() => router.replace(`${pathname}${qs.size ? `?${qs}` : ''}`));
  };
  return (
    <div className="flex flex-wrap items-end gap-3" data-pending={pending || undefined}>
      <div className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
        Range
        <div className="inline-flex rounded-md shadow-xs" role="group" aria-label="Range">
          {STATS_RANGES.map((r, i) => (
            <Button
              key={r}
              size="sm"
              aria-pressed={range === r}
              className={cn('rounded-none', i === 0 && 'rounded-l-md', i > 0 && '-ml-px', range === r && 'bg-indigo-50 text-indigo-700 ring-1 ring-inset ring-indigo-200')}
              onClick={() => go({ range: r, handler: handler || undefined })}
            >
              {r} days
            </Button>
          ))}
          <Button size="sm" aria-pressed={range === 'custom'} className={cn('-ml-px rounded-none rounded-r-md', range === 'custom' && 'bg-indigo-50 text-indigo-700 ring-1 ring-inset ring-indigo-200')} onClick={() => go({ from: customFrom, to: customTo, handler: handler || undefined })}>
            Custom
          </Button>
        </div>
      </div>
      <form
        className="flex items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          go({ from: customFrom, to: customTo, handler: handler || undefined });
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
      <label className="flex flex-col gap-0.5 text-[11px] font-medium text-zinc-500">
        Handler
        <NativeSelect
          aria-label="Handler"
          className="h-7 w-52 text-xs"
          value={handler}
          onChange={(e) => go(range === 'custom' ? { from, to, handler: e.target.value || undefined } : { range, handler: e.target.value || undefined })}
        >
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
