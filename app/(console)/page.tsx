import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { Activity, Briefcase, Server, TriangleAlert } from 'lucide-react';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { getOverview } from '@/lib/stats';
import { PageHeader } from '@/components/shell/page-header';
import { Card, CardHeader } from '@/components/ui/card';
import { DataTable, STACK_FIRST_LINE } from '@/components/ui/data-table';
import { EmptyState } from '@/components/ui/empty-state';
import { StatusBadge } from '@/components/status-badge';
import { RelativeTime } from '@/components/time';
import { Truncate } from '@/components/ui/truncate';
import { AutoRefresh } from '@/components/auto-refresh';
import { NextFires } from '@/components/overview/next-fires';
import { RunningNow } from '@/components/overview/running-now';
import { consolePage } from '@/app/_lib/page-error';
import { JobNameLink } from '@/components/jobs/job-name-link';

export const metadata: Metadata = { title: 'Overview' };
export const dynamic = 'force-dynamic';

/**
 * Overview: what runs now (live) and what fires in the next 24 h, jobs by status, runs of the last 24 h by
 * outcome (skipped shown), workers, dead-letter jobs and the latest failures by job name (lib/stats getOverview).
 * Re-rendered every 15 s; the running list polls every 3 s.
 */
export default consolePage(async function OverviewPage() {
  await requireActor('viewer');
  const o = await getOverview(getDb());
  const rate = o.successRate24h == null ? '—' : `${(o.successRate24h * 100).toFixed(o.successRate24h >= 0.999 ? 0 : 1)}%`;
  return (
    <>
      <AutoRefresh seconds={15} />
      <PageHeader title="Overview" description={<>As of <RelativeTime value={o.generatedAt} /></>} />
      <div className="grid grid-cols-1 gap-4 md:grid-cols-2 xl:grid-cols-4">
        <Stat icon={<Briefcase />} label="Jobs" value={o.jobs.total} href="/jobs">
          {/* a job whose schedule ended is paused too (the tick paused it), but nobody is to resume it: its own word, the jobs list's */}
          <Breakdown items={[['active', o.jobs.active, '/jobs?status=active'], ['paused', o.jobs.paused, '/jobs?status=paused'], ['schedule ended', o.jobs.scheduleEnded, '/jobs?status=paused'], ['dead_letter', o.jobs.deadLetter, '/jobs?status=dead_letter']]} />
          <p className="mt-1 text-xs text-zinc-500">
            <Link href="/recycle-bin" className="hover:underline">{o.jobs.deleted} in the recycle bin</Link>
          </p>
        </Stat>
        <Stat icon={<Activity />} label="Runs, last 24 h" value={o.runs24h.total} href="/runs">
          <Breakdown items={[['success', o.runs24h.success, '/runs?status=success'], ['failed', o.runs24h.failed, '/runs?status=failed'], ['timeout', o.runs24h.timeout, '/runs?status=timeout'], ['running', o.runs24h.running, '/runs?status=running'], ['pending', o.runs24h.pending, '/runs?status=pending'], ['cancelled', o.runs24h.cancelled, '/runs?status=cancelled'], ['skipped', o.runs24h.skipped, '/runs?status=skipped']]} />
        </Stat>
        <Stat icon={<TriangleAlert />} label="Success rate, 24 h" value={rate} tone={o.successRate24h != null && o.successRate24h < 0.95 ? 'bad' : undefined}>
          <p className="text-xs text-zinc-600" data-testid="outcome-counts">
            {o.runs24h.success} success · {o.runs24h.failed} failed · {o.runs24h.timeout} timeout · {o.runs24h.skipped} skipped · {o.runs24h.cancelled} cancelled
          </p>
          <p className="text-xs text-zinc-500">rate = success ÷ (success + failed + timeout); skipped and cancelled runs are not counted</p>
          {o.runs24h.cancelledBeforeSlot ? (
            <p className="text-xs text-zinc-500" data-testid="cancelled-before-slot">
              {o.runs24h.cancelledBeforeSlot} run{o.runs24h.cancelledBeforeSlot === 1 ? '' : 's'} created ahead and cancelled before {o.runs24h.cancelledBeforeSlot === 1 ? 'its' : 'their'} slot (a pause, an edit, or a run that came first) left out
            </p>
          ) : null}
          {o.alarms.pending || o.alarms.failed24h ? (
            <p className="mt-1 text-xs text-amber-700">
              Alarms: {o.alarms.pending} pending, {o.alarms.failed24h} failed deliveries (24 h)
            </p>
          ) : null}
        </Stat>
        <Stat icon={<Server />} label="Workers online" value={o.workers.online} href="/workers" tone={o.workers.online === 0 ? 'bad' : undefined}>
          <Breakdown items={[['online', o.workers.online, '/workers'], ['draining', o.workers.draining, '/workers'], ['stale', o.workers.stale, '/workers'], ['offline', o.workers.offline, '/workers'], ['stopped', o.workers.stopped, '/workers']]} />
          {o.workers.online === 0 ? <p className="mt-1 text-xs text-red-700">No worker is online: nothing fires or runs.</p> : null}
        </Stat>
      </div>

      <div className="mt-4 grid grid-cols-1 gap-4 xl:grid-cols-2">
        <RunningNow initial={o} />
        <NextFires initial={o} />
      </div>

      <div className="mt-4 grid grid-cols-1 gap-4 xl:grid-cols-3">
        <Card className="overflow-hidden xl:col-span-2">
          <CardHeader title="Latest failures" description="Failed or timed-out runs of the last 7 days" />
          {o.latestFailures.length === 0 ? (
            <EmptyState title="No failures in the last 7 days" />
          ) : (
            <DataTable
              testId="latest-failures"
              // below 768 px a card per failure (the card's overflow-hidden would otherwise cut the Error column off)
              stack
              rows={o.latestFailures}
              rowKey={(f) => f.id}
              rowProps={() => ({ className: STACK_FIRST_LINE })}
              columns={[
                { key: 'status', header: 'Status', className: 'max-md:-order-4', cell: (f) => <StatusBadge status={f.status} /> },
                {
                  key: 'job',
                  header: 'Job',
                  className: 'text-xs max-md:-order-3 max-md:min-w-0 max-md:flex-1',
                  // a long name or key is cut (whole on hover), so a row stays two lines high
                  cell: (f) => (
                    <>
                      <Truncate text={f.jobName} className="md:max-w-[15rem]">
                        <JobNameLink jobId={f.jobId} jobKey={f.jobKey} purged={f.jobPurged} className="hover:underline">{f.jobName}</JobNameLink>
                      </Truncate>
                      <Truncate text={f.jobKey} className="font-mono text-[11px] text-zinc-500 md:max-w-[15rem]" />
                    </>
                  ),
                },
                {
                  key: 'run',
                  header: 'Run',
                  className: 'font-mono text-xs max-md:-order-2',
                  cell: (f) => <Link href={f.href} className="text-indigo-700 hover:underline">{f.id.slice(0, 8)}</Link>,
                },
                { key: 'scheduled', header: 'Scheduled', label: 'scheduled', className: 'whitespace-nowrap text-xs', cell: (f) => <RelativeTime value={f.scheduledFor} /> },
                // the Error column takes the width the others leave (width 100%, max-width 0: a table cell's own
                // max-width is not honoured otherwise) and its text is cut there, whole on hover, so it ends
                // inside the card instead of running past its edge
                {
                  key: 'error',
                  header: 'Error',
                  className: 'text-xs text-red-700 md:w-full md:max-w-0 max-md:min-w-0 max-md:max-w-full max-md:basis-full max-md:empty:hidden',
                  cell: (f) => (f.error ? <Truncate text={f.error} data-testid="failure-error" /> : null),
                },
              ]}
            />
          )}
        </Card>
        <Card className="overflow-hidden">
          <CardHeader title="Dead letter" description="Jobs paused by the system after repeated failures" />
          {o.deadLetterJobs.length === 0 ? (
            <EmptyState title="No job is in dead letter" />
          ) : (
            <ul className="divide-y divide-zinc-100">
              {o.deadLetterJobs.map((j) => (
                <li key={j.id} className="px-4 py-2">
                  <Link href={j.href} className="font-mono text-xs text-indigo-700 hover:underline">{j.key}</Link>
                  <p className="text-xs text-zinc-500">
                    {j.consecutiveFailures} consecutive failures{j.lastError ? ` · ${j.lastError}` : ''}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
});

function Stat({ icon, label, value, href, tone, children }: { icon: React.ReactNode; label: string; value: React.ReactNode; href?: string; tone?: 'bad'; children?: React.ReactNode }) {
  const v = <span className={tone === 'bad' ? 'text-red-700' : 'text-zinc-900'}>{value}</span>;
  return (
    <Card className="p-4">
      <div className="flex items-center gap-2 text-xs font-medium text-zinc-500 [&_svg]:size-3.5">
        {icon}
        {label}
      </div>
      <div className="mt-1 text-2xl font-semibold tabular-nums tracking-tight">{href ? <Link href={href} className="hover:underline">{v}</Link> : v}</div>
      <div className="mt-2">{children}</div>
    </Card>
  );
}

function Breakdown({ items }: { items: [string, number, string][] }) {
  return (
    <div className="flex flex-wrap gap-1.5">
      {items
        .filter(([, n]) => n > 0)
        .map(([s, n, href]) => (
          <Link key={s} href={href} className="inline-flex items-center gap-1 text-xs">
            <StatusBadge status={s} />
            <span className="tabular-nums text-zinc-700">{n}</span>
          </Link>
        ))}
      {items.every(([, n]) => n === 0) ? <span className="text-xs text-zinc-500">none</span> : null}
    </div>
  );
}
