import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { getStatsTimeZone } from '@/lib/stats/current-zone';
import { DailyStatsQuery, lastDaysRange, listStatsHandlers } from '@/lib/stats/get-daily-stats';
import { getStatsSeries, type StatsSeries } from '@/lib/stats/get-stats-series';
import { listJobOptions } from '@/lib/jobs/job-options';
import { searchJobOptionsAction } from '../actions';
import { PageHeader } from '@/components/shell/page-header';
import { ErrorPanel } from '@/components/error-panel';
import { StatsPanel } from '@/components/charts/stats-panel';
import { StatsRangeControls } from '@/components/charts/stats-range-controls';
import { consolePage } from '@/app/_lib/page-error';
import { parseFields } from '@/lib/api/validation';

export const metadata: Metadata = { title: 'Stats' };
export const dynamic = 'force-dynamic';

type SP = { range?: string; from?: string; to?: string; handler?: string; job?: string; granularity?: string };

/**
 * /stats: handler stats per day over 7/30/90 days or a custom range, or per hour over the last 48 hours,
 * optionally for one job (searchable picker) and/or one handler. Every job per day reads the aggregate
 * table handler_stats_daily; one job or per hour aggregates the task logs of the range with the same
 * counting rule (lib/stats getStatsSeries). Days and hours are cut in the stats zone setting
 * (lib/stats/stats-zone.ts).
 */
export default consolePage(async function StatsPage({ searchParams }: { searchParams: Promise<SP> }) {
  const actor = await requireActor('viewer');
  const sp = await searchParams;
  const hourly = sp.granularity === 'hour';
  const custom = !!(sp.from || sp.to);
  const range = custom ? 'custom' : ['7', '30', '90'].includes(sp.range ?? '') ? sp.range! : '30';
  const db = getDb();
  const tz = await getStatsTimeZone(db);
  // One clock for the whole page: the preset range, the hourly window and the handler picker's year must
  // agree when the request straddles midnight in the stats zone.
  const now = new Date();
  const fallback = lastDaysRange(Number(range === 'custom' ? 30 : range), tz, now);
  // the domain's own check (parseFields: the schema, and text PostgreSQL would refuse, such as NUL)
  // a From without a To reads up to today (an open-ended range, as the runs list reads one); a To alone stays refused
  const parsed = parseFields(DailyStatsQuery, { from: custom ? sp.from ?? '' : fallback.from, to: custom ? sp.to || (sp.from ? fallback.to : '') : fallback.to, handler: sp.handler || undefined });
  const errors: string[] = [];
  if (!parsed.ok && !hourly) errors.push(`Invalid range (${Object.entries(parsed.fields).map(([k, m]) => `${k}: ${m}`).join('; ')}); showing the last 30 days.`);
  // a refused handler is not passed on: every handler is shown, and the error says why
  const handlerRefused = !parsed.ok && Object.keys(parsed.fields).some((k) => k === 'handler' || k.startsWith('handler.'));
  if (handlerRefused && hourly) errors.push(`Invalid handler (${Object.entries(parsed.fields).filter(([k]) => k.startsWith('handler')).map(([, m]) => m).join('; ')}); showing every handler.`);
  const q = parsed.ok ? parsed.data : { ...fallback, handler: handlerRefused ? undefined : sp.handler || undefined };
  const jobId = sp.job || undefined;
  const base = { handler: q.handler, ...(hourly ? { granularity: 'hour' } : { from: q.from, to: q.to }) };
  let data: StatsSeries;
  try {
    data = await getStatsSeries(db, { ...base, jobId }, actor, now);
  } catch (e) {
    // a malformed job id in the URL: say so and show every job (an unknown one is a filter matching nothing)
    if (!isDomainError(e) || !jobId) throw e;
    errors.push(`Job ${jobId}: ${e.message}; showing every job.`);
    data = await getStatsSeries(db, base, actor, now);
  }
  const [handlers, jobOptions] = await Promise.all([
    listStatsHandlers(db, { from: lastDaysRange(366, tz, now).from, to: lastDaysRange(1, tz, now).to }),
    // picker options: the first live jobs by key and the job shown; typing searches every job (as on the runs list)
    listJobOptions(db, actor, { selected: data.jobId ?? undefined }).catch(() => []),
  ]);
  const jobLabel = data.jobId ? (jobOptions.find((o) => o.value === data.jobId)?.label ?? data.jobId) : null;
  const zone = tz === 'UTC' ? 'UTC' : tz;
  return (
    <>
      <PageHeader
        title="Stats"
        description={
          <span data-testid="stats-scope">
            {hourly ? `Hourly outcomes of the last 48 hours (hours in ${zone})` : `Daily outcomes (${tz === 'UTC' ? 'UTC days' : `days in ${tz}`})`}
            {jobLabel ? `, job ${jobLabel}` : ', every job'}
            {data.jobId || hourly ? '; counted from the task logs.' : '; read from the daily aggregate table.'}
          </span>
        }
      />
      <div className="mb-4">
        <StatsRangeControls view={{ range, from: q.from, to: q.to, handler: q.handler ?? '', job: data.jobId ?? '', granularity: hourly ? 'hour' : 'day' }} handlers={handlers} jobs={jobOptions} searchJobs={searchJobOptionsAction} />
      </div>
      {errors.map((m) => (
        <div key={m} className="mb-4">
          <ErrorPanel message={m} />
        </div>
      ))}
      <StatsPanel
        data={data}
        granularity={data.granularity}
        perHandler={!q.handler}
        handlerHref={(h) => `/stats?${new URLSearchParams({ ...(hourly ? { granularity: 'hour' } : range === 'custom' ? { from: q.from, to: q.to } : { range }), ...(data.jobId ? { job: data.jobId } : {}), handler: h })}`}
      />
    </>
  );
});
