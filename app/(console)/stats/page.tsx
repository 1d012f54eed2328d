import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { getStatsTimeZone } from '@/lib/stats/current-zone';
import { DailyStatsQuery, lastDaysRange, listStatsHandlers } from '@/lib/stats/get-daily-stats';
import { getStatsChartData } from '@/lib/stats/chart-data';
import { PageHeader } from '@/components/shell/page-header';
import { ErrorPanel } from '@/components/error-panel';
import { StatsPanel } from '@/components/charts/stats-panel';
import { StatsRangeControls } from '@/components/charts/stats-range-controls';

export const metadata: Metadata = { title: 'Stats' };
export const dynamic = 'force-dynamic';

type SP = { range?: string; from?: string; to?: string; handler?: string };

/**
 * /stats: daily handler stats over 7/30/90 days or a custom range, optionally for one handler.
 * Reads only the aggregate table handler_stats_daily (lib/stats), so it stays fast at any
 * history size; days are calendar days in the stats zone setting (lib/stats/stats-zone.ts).
 */
export default async function StatsPage({ searchParams }: { searchParams: Promise<SP> }) {
  await requireActor('viewer');
  const sp = await searchParams;
  const custom = !!(sp.from || sp.to);
  const range = custom ? 'custom' : ['7', '30', '90'].includes(sp.range ?? '') ? sp.range! : '30';
  const db = getDb();
  const tz = await getStatsTimeZone(db);
  const fallback = lastDaysRange(Number(range === 'custom' ? 30 : range), tz);
  const parsed = DailyStatsQuery.safeParse({ from: custom ? sp.from ?? '' : fallback.from, to: custom ? sp.to ?? '' : fallback.to, handler: sp.handler || undefined });
  const error = parsed.success ? null : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  const q = parsed.success ? parsed.data : { ...fallback, handler: sp.handler || undefined };
  const [data, handlers] = await Promise.all([
    getStatsChartData(db, { from: q.from, to: q.to, handlers: q.handler ? [q.handler] : [] }),
    listStatsHandlers(db, { from: lastDaysRange(366, tz).from, to: q.to }),
  ]);
  return (
    <>
      <PageHeader
        title="Stats"
        description={`Daily handler outcomes, durations and lateness (${tz === 'UTC' ? 'UTC days' : `days in ${tz}`}; read from the daily aggregate table).`}
      />
      <div className="mb-4">
        <StatsRangeControls range={range} from={q.from} to={q.to} handler={q.handler ?? ''} handlers={handlers} />
      </div>
      {error ? (
        <div className="mb-4">
          <ErrorPanel message={`Invalid range (${error}); showing the last 30 days.`} />
        </div>
      ) : null}
      <StatsPanel
        data={data}
        perHandler={!q.handler}
        handlerHref={(h) => `/stats?${new URLSearchParams(range === 'custom' ? { from: q.from, to: q.to, handler: h } : { range, handler: h })}`}
      />
    </>
  );
}
