import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { notFound, unstable_rethrow } from 'next/navigation';
import { TriangleAlert } from 'lucide-react';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { getJob, type JobDetail } from '@/lib/jobs/get-job';
import { resumeRefusal } from '@/lib/jobs/resume-job';
import { RefreshAfterFires } from '@/components/auto-refresh';
import { deadLetterNote, notFiringReason } from '@/lib/jobs/job-view';
import { listVersions } from '@/lib/jobs/list-versions';
import { listRuns } from '@/lib/runs';
import { PageHeader } from '@/components/shell/page-header';
import { Card, CardBody, CardHeader, DescriptionList } from '@/components/ui/card';
import { StatusBadge, Tag } from '@/components/status-badge';
import { ScheduleEnded } from '@/components/jobs/schedule-ended';
import { RelativeTime, ZonedTime } from '@/components/time';
import { FireTimesTable } from '@/components/jobs/schedule-preview';
import { JOB_ACTIONS_GRID, JOB_ACTION_CELL, JobActions } from '@/components/jobs/job-actions';
import { BackfillDialog } from '@/components/jobs/backfill-dialog';
import { DeletedJobActions } from '@/components/jobs/deleted-job-actions';
import { purgeJobAction, restoreJobAction } from '../../recycle-bin/actions';
import { JobTabs } from '@/components/jobs/job-tabs';
import { JOB_TABS, type JobTab } from '@/components/jobs/job-tab-names';
import { VersionsPanel } from '@/components/jobs/versions-panel';
import { RecoveryHistory } from '@/components/jobs/recovery-history';
import { listJobAudit } from '@/lib/jobs/list-job-audit';
import { StepsTable } from '@/components/jobs/steps-table';
import { alarmTriggersText } from '@/components/jobs/alarm-summary';
import { JobRunsPanel } from '@/components/runs/job-runs-panel';
import { JobGridPanel } from '@/components/runs/job-grid-panel';
import { JobCalendarPanel } from '@/components/runs/job-calendar-panel';
import { RunHistoryStrip } from '@/components/jobs/run-history-strip';
import { LastRun } from '@/components/jobs/last-run';
import { scheduleSummary } from '@/components/jobs/schedule-summary';
import { JobGraphPanel } from './graph-panel';
import { configuredPrivilegedHandlers, deleteRefusal, mayUsePrivilege, stepPrivilege } from '@/lib/jobs/handler-permissions';
import { getStatsChartData } from '@/lib/stats/chart-data';
import { JobStatsPanel } from '@/components/charts/job-stats-panel';
import { loadHandlerCatalogueFor } from '../handler-names';
import { deleteJobAction, diffVersionsAction, pauseJobAction, resumeJobAction, rollbackJobAction, saveJobDagAction, triggerJobAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const dynamic = 'force-dynamic';

type Props = { params: Promise<{ id: string }>; searchParams: Promise<{ tab?: string }> };

async function load(id: string) {
  const actor = await requireActor('viewer');
  try {
    return { actor, job: await getJob(getDb(), id, actor) };
  } catch (e) {
    if (isDomainError(e) && e.code === 'not_found') notFound();
    throw e;
  }
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  try {
    const { job } = await load(id);
    return { title: job.key };
  } catch (e) {
    // notFound() must reach Next here too: metadata is resolved before the page streams,
    // so this is what turns /jobs/<unknown or malformed id> into an HTTP 404.
    unstable_rethrow(e);
    return { title: 'Job' };
  }
}

/** /jobs/[id]: header with actions, then tabs Overview / Graph / Runs / Grid / Calendar / Versions (`?tab=`). */
export default consolePage(async function JobPage({ params, searchParams }: Props) {
  const [{ id }, sp] = await Promise.all([params, searchParams]);
  const { actor, job } = await load(id);
  const tab: JobTab = (JOB_TABS as readonly string[]).includes(sp.tab ?? '') ? (sp.tab as JobTab) : 'overview';
  const [versions, runs, handlers, stats] = await Promise.all([
    listVersions(getDb(), job.id, actor, { limit: 200 }),
    listRuns(getDb(), { jobId: job.id, limit: 60 }, actor),
    loadHandlerCatalogueFor(actor),
    // Handler-level daily stats (lib/stats, shared by every job using the handler); a failure only hides the panel.
    getStatsChartData(getDb(), { handlers: [...new Set(job.steps.map((s) => s.handler))], days: 30 }).catch(() => null),
  ]);
  const audit = await listJobAudit(getDb(), job.id, actor, { limit: 50 });
  const canWrite = actor.role !== 'viewer';
  // executor permissions (lib/jobs/handler-permissions.ts): what this actor may not put in the graph
  const privileged = configuredPrivilegedHandlers();
  const graphLock = job.steps.map((s) => stepPrivilege(s, job.payload, privileged)).find((p) => !mayUsePrivilege(actor, p)) ?? null;

  return (
    <>
      <PageHeader
        crumb={
          <Link href="/jobs" className="hover:underline">
            Jobs
          </Link>
        }
        title={
          // a long key wraps (PageHeader) and the status badge follows it, on the next line if need be: never off screen
          <span className="flex flex-wrap items-center gap-x-2.5 gap-y-1">
            <span className="min-w-0 font-mono" data-testid="job-title-key">{job.key}</span>
            {/* a deleted job keeps its status for a restore, but deleted is its state */}
            <StatusBadge status={job.deletedAt ? 'deleted' : job.status} data-testid="job-status" />
            {job.deletedAt ? null : <ScheduleEnded status={job.status} refusal={resumeRefusal(job, new Date())} />}
          </span>
        }
        description={
          job.description ? (
            <>
              {job.name}
              <span className="mt-0.5 block whitespace-pre-line text-zinc-600" data-testid="job-description">{job.description}</span>
            </>
          ) : (
            job.name
          )
        }
        actions={
          job.deletedAt ? (
            <DeletedJobActions jobId={job.id} jobKey={job.key} restore={restoreJobAction} purge={purgeJobAction} />
          ) : (
            <div className={JOB_ACTIONS_GRID} data-testid="job-actions">
              <div className={JOB_ACTION_CELL}>
                <BackfillDialog jobId={job.id} scheduled={job.schedule.kind !== 'manual'} />
              </div>
              <JobActions jobId={job.id} jobKey={job.key} status={job.status} trigger={triggerJobAction} pause={pauseJobAction} resume={resumeJobAction} remove={deleteJobAction} deleteLock={deleteRefusal(actor, { steps: job.steps, jobPayload: job.payload })?.message ?? null} resumeLock={resumeRefusal(job, new Date())} />
            </div>
          )
        }
      />
      {/* the header, Overview and Status are this render: re-read after the job's next fire, at least every 30 s */}
      {job.deletedAt ? null : <RefreshAfterFires fires={[job.nextFireAt]} />}
      {job.deletedAt ? (
        <div className="mb-4 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[13px] text-amber-900" data-testid="deleted-job-notice">
          This job is in the <Link href="/recycle-bin" className="underline">recycle bin</Link> (deleted by {job.deletedBy ?? 'unknown'} <RelativeTime value={job.deletedAt} />): read only. Its definition, versions and runs are shown as they were; Restore brings it back, Purge deletes it for good.
        </div>
      ) : null}
      {job.status === 'dead_letter' ? (
        <div className="mb-4 flex items-start gap-2 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-[13px] text-red-900" role="status" data-testid="dead-letter-notice">
          <TriangleAlert className="mt-0.5 size-4 shrink-0" />
          <span>{deadLetterNote(job)}</span>
        </div>
      ) : null}
      <JobTabs
        initial={tab}
        panels={{
          overview: (
            <>
              <Overview job={job} />
              <Card className="mt-4">
                <CardBody>
                  <RunHistoryStrip runs={runs.items} />
                </CardBody>
              </Card>
              {stats ? (
                <div className="mt-4">
                  <JobStatsPanel data={stats} title="Handler stats, last 30 days" />
                </div>
              ) : null}
            </>
          ),
          graph: (
            <JobGraphPanel
              job={job}
              canEdit={canWrite && !job.deletedAt && !graphLock}
              lockedReason={canWrite && graphLock ? `Only ${graphLock.level === 'system' ? 'the system' : 'an admin'} may change what this job runs: ${graphLock.reason}.` : undefined}
              readOnlyReason={job.deletedAt ? 'Read only: this job is in the recycle bin; restore it to change its graph.' : !canWrite ? 'Read only: viewer role.' : undefined}
              handlers={handlers.names.filter((h) => mayUsePrivilege(actor, stepPrivilege({ handler: h }, {}, privileged)))}
              catalogue={handlers.catalogue}
              saveAction={saveJobDagAction}
            />
          ),
          runs: (
            <Card className="overflow-hidden">
              <JobRunsPanel jobId={job.id} initial={runs.items} />
            </Card>
          ),
          grid: (
            <Card>
              <CardBody>
                <JobGridPanel jobId={job.id} />
              </CardBody>
            </Card>
          ),
          calendar: (
            <Card>
              <CardBody>
                <JobCalendarPanel jobId={job.id} />
              </CardBody>
            </Card>
          ),
          versions: (
            <>
              <Card className="overflow-hidden">
                {/* keyed by version: an edit or a rollback starts the compare box afresh (newest two picked, no old diff) */}
                <VersionsPanel key={job.version} jobId={job.id} currentVersion={job.version} firstPage={versions} diff={diffVersionsAction} rollback={rollbackJobAction} />
              </Card>
              <Card className="mt-4 overflow-hidden">
                {/* keyed by the newest entry: a new recovery action starts the older pages afresh */}
                <RecoveryHistory key={audit.items[0]?.id ?? 'none'} jobId={job.id} firstPage={audit} />
              </Card>
            </>
          ),
        }}
      />
    </>
  );
});

function Overview({ job }: { job: JobDetail }) {
  const p = job.policy;
  const r = job.routing;
  const a = job.alarms;
  const idle = notFiringReason(job);
  return (
    <div className="grid grid-cols-1 gap-4 xl:grid-cols-3">
      <Card className="xl:col-span-2">
        <CardHeader title="Schedule" description={job.schedule.kind === 'cron' ? `Cron in ${job.timezone}` : undefined} />
        <CardBody className="grid grid-cols-1 gap-4 md:grid-cols-2">
          <DescriptionList
            items={[
              ['Kind', <Tag key="k">{job.schedule.kind}</Tag>],
              ['Schedule', <span key="s" className="font-mono text-xs" data-testid="schedule-summary">{scheduleSummary(job.schedule)}</span>],
              ...(job.schedule.kind === 'once' ? ([['Run at', <ZonedTime key="o" value={job.schedule.runAt} timeZone={job.timezone} />]] as [string, React.ReactNode][]) : []),
              // a cron job fires in its zone; a once job's run-at and any job's window are instants, shown in it
              ['Time zone', job.schedule.kind === 'manual' ? 'UTC (a manual job has no schedule)' : job.schedule.kind === 'cron' ? job.timezone : `${job.timezone} (display only)`],
              // nextFireAt, not nextRunAt: a run created ahead of its slot is the next fire (docs/on-time.md "Next fire"),
              // even for a `once` job the system paused when it fired that slot ahead.
              ['Next fire', job.nextFireAt ? <ZonedTime key="n" value={job.nextFireAt} timeZone={job.timezone} /> : idle ? `— (${idle.replace('_', ' ')})` : '—'],
              ['Window', job.startAt || job.endAt ? <span key="w" className="text-xs"><ZonedTime value={job.startAt} timeZone={job.timezone} /> → <ZonedTime value={job.endAt} timeZone={job.timezone} /></span> : 'always'],
              ['Stagger', `${job.staggerSeconds}s`],
            ]}
          />
          <div>
            <p className="mb-1.5 text-xs font-medium text-zinc-600" data-testid="fire-times-heading">
              {!idle || job.nextFireAt || !job.nextFireTimes.length
                ? 'Next 5 fire times'
                : idle === 'deleted'
                  ? 'Next 5 fire times of the schedule — the job is deleted: none of them fires until it is restored'
                  : `Next 5 fire times of the schedule — the job is ${idle.replace('_', ' ')}: none of them fires until it is resumed`}
            </p>
            {job.nextFireTimes.length ? <FireTimesTable times={job.nextFireTimes} timeZone={job.timezone} /> : <p className="text-xs text-zinc-500">{job.schedule.kind === 'manual' ? 'Manual job: fires only on Run now or the API.' : 'No further fire times.'}</p>}
          </div>
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Status" />
        <CardBody>
          <DescriptionList
            items={[
              ['Status', <StatusBadge key="s" status={idle === 'deleted' ? 'deleted' : job.status} />],
              ['Last run', <LastRun key="l" job={job} timeClassName="" />],
              // each run counts once, under its latest outcome: an operator retry, clear or mark
              // success moves it between the two (docs/recovery.md "Job counters")
              ['Runs', <span key="r" className="tabular-nums" title="Each run counts once, under its latest outcome (a retried or marked run moves between succeeded and failed); runs still active, cancelled or skipped are in neither">{job.totalRuns} total · <span className={job.successRuns > 0 ? 'text-emerald-700' : undefined} data-testid="job-success-runs">{job.successRuns} succeeded</span> · {/* red only for a failure to look at: a red "0 failed" read as an alarm */}<span className={job.failedRuns > 0 ? 'text-red-700' : undefined} data-testid="job-failed-runs">{job.failedRuns} failed</span></span>],
              ['Consecutive failures', <span key="c" className="tabular-nums">{job.consecutiveFailures}{p.deadLetterAfter ? ` / ${p.deadLetterAfter}` : ''}</span>],
              ...(job.lastError ? ([['Last error', <span key="e" className="text-xs text-red-700">{job.lastError}</span>]] as [string, React.ReactNode][]) : []),
              ['Version', `v${job.version}`],
              ['Created', <span key="cr">{job.createdBy} · <RelativeTime value={job.createdAt} /></span>],
              ['Updated', <span key="up">{job.updatedBy} · <RelativeTime value={job.updatedAt} /></span>],
            ]}
          />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Policy" />
        <CardBody>
          <DescriptionList
            items={[
              ['Timeout', `${p.timeoutSeconds}s`],
              ['Retries', `${p.maxRetries} (backoff ${p.backoff.baseSeconds}s × ${p.backoff.factor}^n, max ${p.backoff.maxSeconds}s, jitter ${p.backoff.jitter})`],
              ['Block strategy', <Tag key="b">{p.blockStrategy}</Tag>],
              ['Misfire', <span key="m"><Tag>{p.misfirePolicy}</Tag> cap {p.misfireMaxCatchup}</span>],
              ['Dead letter after', p.deadLetterAfter ? `${p.deadLetterAfter} failed runs` : 'never'],
              ['Priority', p.priority],
            ]}
          />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Routing" />
        <CardBody>
          <DescriptionList
            items={[
              ['Group', r.nodeGroup ?? 'any'],
              ['Labels', Object.keys(r.labels).length ? <span key="l">{Object.entries(r.labels).map(([k, v]) => <Tag key={k} mono className="mr-1">{k}={v}</Tag>)}</span> : 'none'],
              ['Strategy', <Tag key="s">{r.strategy}</Tag>],
              ...(r.strategy === 'nodes' ? ([['Nodes', r.nodes.join(', ') || '—']] as [string, React.ReactNode][]) : []),
              ...(r.key ? ([['Key', r.key]] as [string, React.ReactNode][]) : []),
            ]}
          />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title="Alarms" />
        <CardBody>
          <DescriptionList
            items={[
              ['Raised on', alarmTriggersText(a)],
              ['Channels', a.channels.length ? <span key="c" className="flex flex-col gap-0.5">{a.channels.map((c, i) => <span key={i} className="text-xs"><Tag>{c.type}</Tag> {c.target}</span>)}</span> : 'none'],
            ]}
          />
        </CardBody>
      </Card>
      <Card className="xl:col-span-3">
        <CardHeader title={`Steps (${job.steps.length})`} />
        <StepsTable steps={job.steps} edges={job.edges} />
      </Card>
    </div>
  );
}
