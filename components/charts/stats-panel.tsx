import type { StatsChartData } from '@/lib/stats/chart-data';
import { Card, CardHeader } from '../ui/card';
import { OutcomeBarsChart } from './outcome-bars';
import { outcomesTitle } from './chart-theme';
import { DurationTrendChart, LatenessTrendChart } from './trend-lines';
import { HandlerTotalsTable } from './handler-totals-table';

/**
 * The stats charts for one StatsChartData (lib/stats getStatsChartData): combined stacked
 * outcome bars, duration p50/p95 and lateness trends, per-handler stacked bars (small multiples,
 * when more than one handler) and the handler totals table. Every chart carries its title with
 * its unit (components/charts/chart-figure.tsx): duration and lateness look alike otherwise. No data fetching: works in server
 * and client trees. `handlerHref` links handler names (e.g. to `/stats?handler=`).
 */
export function StatsPanel({ data, handlerHref, perHandler = true, granularity = 'day' }: { data: StatsChartData; handlerHref?: (handler: string) => string; perHandler?: boolean; granularity?: 'day' | 'hour' }) {
  // points are days, or wall-clock hours `YYYY-MM-DDTHH:00` (lib/stats getStatsSeries) that the axes write as `Mar 7 13:00`
  const unit = granularity === 'hour' ? 'hour' : 'day';
  const zone = data.timeZone === 'UTC' ? `UTC ${unit}s` : `${unit}s in ${data.timeZone}`;
  return (
    <div className="flex flex-col gap-4" data-testid="stats-panel" data-granularity={granularity} data-points={data.daily.length}>
      <Card>
        <OutcomeBarsChart data={data.daily} framed title={outcomesTitle(unit)} description={`Finished attempts by outcome, ${zone}`} />
      </Card>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <Card>
          <DurationTrendChart data={data.daily} per={unit} framed description="Time an attempt took, estimated from the duration histogram" />
        </Card>
        <Card>
          <LatenessTrendChart data={data.daily} per={unit} framed description="Start delay after the scheduled time (first attempts)" />
        </Card>
      </div>
      {perHandler && data.byHandler.length > 1 ? (
        <Card>
          <CardHeader title="Per handler" description={`Stacked outcomes per ${unit} for the busiest handlers`} />
          <div className="grid grid-cols-1 gap-x-4 gap-y-3 px-3 py-3 md:grid-cols-2 xl:grid-cols-3">
            {data.byHandler.map((h) => (
              <div key={h.handler} data-handler={h.handler}>
                <OutcomeBarsChart data={h.daily} height={120} compact title={outcomesTitle(unit, h.handler)} />
              </div>
            ))}
          </div>
        </Card>
      ) : null}
      <Card className="overflow-hidden">
        <CardHeader title="Handlers" description={`${granularity === 'hour' ? `${data.from.replace('T', ' ')} to ${data.to.replace('T', ' ')}` : `${data.from} to ${data.to}`}, totals over the range`} />
        <HandlerTotalsTable totals={data.totals} hrefFor={handlerHref} />
      </Card>
    </div>
  );
}
