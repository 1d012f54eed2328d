'use client';
// The overview's "Next 24 hours": one row per active job, a dot at each fire on a 24-hour time axis (a spread
// sample when a job fires more often than the row can draw), and how many times each job fires.
import { Link } from '@/components/ui/link';
import type { Overview } from '@/lib/stats/get-overview';
import { formatDateTime, toDate } from '@/lib/time/format';
import { hourTicks } from './next-fires-axis';
import { useDisplayZone } from '../display-zone';
import { Card, CardHeader } from '../ui/card';
import { EmptyState } from '../ui/empty-state';
import { nextFiresCaption } from './next-fires-caption';
import { useLiveOverview } from './running-now';

const DAY = 86_400_000;

/** The card (test id `next-fires`, one `next-fire-row` per job, one `next-fire-dot` per fire). */
export function NextFires({ initial }: { initial: Overview }) {
  const o = useLiveOverview(initial);
  const zone = useDisplayZone();
  // The axis starts at the overview's own clock, so the server and the browser draw the same picture.
  const from = toDate(o.generatedAt)!.getTime();
  const ticks = hourTicks(from, zone);
  const total = o.nextFires.reduce((n, j) => n + j.count, 0);
  // Counting stops at a budget (lib/stats/upcoming-fires.ts COUNT_BUDGET): then the total is a lower bound.
  const atLeast = o.nextFires.some((j) => j.countIsLowerBound);
  return (
    <Card className="overflow-hidden">
      <CardHeader title="Next 24 hours" description={<span data-testid="next-fires-caption">{nextFiresCaption(total, o.nextFires.length, atLeast, zone)}</span>} />
      {o.nextFires.length === 0 ? (
        <EmptyState title="Nothing fires in the next 24 hours" />
      ) : (
        <div className="px-4 pb-3" data-testid="next-fires">
          <div className="relative ml-48 h-5 max-md:ml-28 border-b border-zinc-200 text-[10px] text-zinc-500">
            {ticks.map((t) => (
              <span key={t.at} data-testid="next-fires-tick" className={`absolute -translate-x-1/2 whitespace-nowrap ${t.minor ? 'max-md:hidden' : ''}`} style={{ left: `${t.at * 100}%` }}>
                {t.label}
              </span>
            ))}
          </div>
          <ul>
            {o.nextFires.map((j) => (
              <li key={j.jobId} className="flex items-center border-b border-zinc-50 py-1" data-testid="next-fire-row">
                <div className="w-48 shrink-0 pr-2 text-xs max-md:w-28">
                  <Link href={`/jobs/${j.jobId}`} className="block truncate text-indigo-700 hover:underline" title={j.jobKey}>
                    {j.jobName || j.jobKey}
                  </Link>
                  {/* wraps rather than clips: the count must stay readable beside a long date */}
                  <div className="text-[11px] leading-tight text-zinc-500" data-testid="next-fire-summary">
                    {/* a job's own next fire is written in the job's zone, as on the jobs list (docs/console.md) */}
                    next {formatDateTime(j.fires[0], j.timezone, { seconds: false })}
                    <span className="whitespace-nowrap">{` · ${j.countIsLowerBound ? 'over ' : ''}${j.count} in 24 h`}</span>
                  </div>
                </div>
                <div className="relative h-4 flex-1">
                  {ticks.map((t) => (
                    <span key={t.at} className="absolute inset-y-0 w-px bg-zinc-100" style={{ left: `${t.at * 100}%` }} />
                  ))}
                  {j.fires.map((f) => {
                    const at = Math.min(1, Math.max(0, (toDate(f)!.getTime() - from) / DAY));
                    return <span key={f} data-testid="next-fire-dot" title={formatDateTime(f, zone)} className="absolute top-1/2 size-2 -translate-x-1/2 -translate-y-1/2 rounded-full bg-indigo-500 ring-2 ring-white" style={{ left: `${at * 100}%` }} />;
                  })}
                </div>
              </li>
            ))}
          </ul>
        </div>
      )}
    </Card>
  );
}
