import type { StatsChartData } from '@/lib/stats/chart-data';
import { Card, CardHeader } from '../ui/card';
import { OutcomeBarsChart } from './outcome-bars';
import { outcomesTitle } from './chart-theme';
import { DurationTrendChart, LatenessTrendChart } from './trend-lines';
import { HandlerTotalsTable } from './handler-totals-table';

/**
 * Stats of one job's handlers for the job page. Data props: the page loads
 * `getStatsChartData(getDb(), { handlers: [...the job's step handlers], days: 30 })`
 * (lib/stats/chart-data.ts — reads only handler_stats_daily) and passes it as `data`.
 * Note the aggregate is per handler, so a handler shared with other jobs shows their runs too.
 */
export function JobStatsPanel({ data, title = 'Handler stats' }: { data: StatsChartData; title?: string }) {
  const has = data.totals.length > 0;
  return (
    <Card data-testid="job-stats-panel">
      <CardHeader
        title={title}
        description={`${data.handlers.length ? data.handlers.join(', ') : 'all handlers'} · ${data.from} to ${data.to}${data.timeZone === 'UTC' ? '' : ` (${data.timeZone})`} · shared by every job using these handlers`}
        actions={
          <a className="text-xs text-indigo-700 hover:underline" href={`/stats?from=${data.from}&to=${data.to}${data.handlers.length === 1 ? `&handler=${encodeURIComponent(data.handlers[0])}` : ''}`}>
            Open stats
          </a>
        }
      />
      {has ? (
        <>
          <div className="grid grid-cols-1 gap-3 px-2 pb-1 pt-3 xl:grid-cols-3">
            <OutcomeBarsChart data={data.daily} height={180} title={outcomesTitle('day')} />
            <DurationTrendChart data={data.daily} height={180} />
            <LatenessTrendChart data={data.daily} height={180} />
          </div>
          <HandlerTotalsTable totals={data.totals} />
        </>
      ) : (
        <p className="px-4 py-6 text-center text-[13px] text-zinc-500">No finished tasks for these handlers in the last {data.daily.length} days.</p>
      )}
    </Card>
  );
}
