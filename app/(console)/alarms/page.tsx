import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { consolePage, pageErrorMessage } from '@/app/_lib/page-error';
import { ALARM_STATUSES, ALARM_TYPES, type AlarmStatus, type AlarmType } from '@/lib/alarms/config';
import { listAlarms } from '@/lib/alarms/list-alarms';
import { listJobOptions } from '@/lib/jobs/job-options';
import { searchJobOptionsAction } from '../actions';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { FilterBar, type FilterDef } from '@/components/filter-bar';
import { clearFiltersHref, filtersSet, refusalMessage, refusedFilters } from '@/components/filter-params';
import { isDomainError } from '@/lib/errors';
import { ErrorPanel } from '@/components/error-panel';
import { AlarmsTable } from '@/components/alarms/alarms-table';
import { runAlarmDelayNote } from '@/components/alarms/run-alarm-delay';
import { runScanLagSeconds } from '@/lib/alarms/scan-finished-runs';
import { SilencesPanel } from '@/components/alarms/silences-panel';
import { listSilences } from '@/lib/alarms/list-silences';
import type { SilenceView } from '@/lib/alarms/silences';
import type { Page } from '@/lib/api/cursor';
import { acknowledgeAlarmAction, sendTestAlarmAction, silenceAlarmsAction, unsilenceAction } from './actions';
import { SendTestAlarmButton } from './send-test-alarm-button';

export const metadata: Metadata = { title: 'Alarms' };
export const dynamic = 'force-dynamic';

type SP = { type?: string; status?: string; jobId?: string; cursor?: string; before?: string };
const FILTER_NAMES = ['type', 'status', 'jobId'];


/**
 * /alarms: every alarm delivery (one row per channel) newest first, filtered by type, status
 * and job, refreshed live (TanStack Query, components/alarms/alarms-table.tsx); the silences in
 * force; Acknowledge / Silence / Unsilence and "Send test alarm" for operators. Collapsed
 * repeats show their count.
 */
export default consolePage(async function AlarmsPage({ searchParams }: { searchParams: Promise<SP> }) {
  const actor = await requireActor('viewer');
  const sp = await searchParams;
  // Filters go to the domain as typed, as the API takes them: an unknown type or status, or a bad time, is
  // refused there and shown here as its error naming the parameter, never dropped into an unfiltered list.
  const type = sp.type || undefined;
  const status = sp.status || undefined;
  let result: Awaited<ReturnType<typeof listAlarms>> | null = null;
  let silences: Page<SilenceView> | null = null;
  let error: string | null = null;
  let refused: Record<string, string> = {};
  let refusedFields: Record<string, string> | undefined;
  // `cursor` pages (the table's Older link); `before` (an instant) only bounds the list (lib/alarms/list-alarms.ts)
  const cursor = sp.cursor || undefined;
  const before = sp.before || undefined;
  // a job id, as the API takes it (a key or a typo is refused there, and shown here as its error)
  const jobId = sp.jobId?.trim() || undefined;
  try {
    silences = await listSilences(getDb());
    result = await listAlarms(getDb(), { type: type as AlarmType | undefined, status: status as AlarmStatus | undefined, jobId, cursor, before, limit: 50 });
  } catch (e) {
    error = pageErrorMessage(e, 'Could not load alarms');
    // the refused filters show their value marked beside the error, never "All" (FilterBar `refused`)
    if (isDomainError(e)) {
      refused = refusedFilters(e.fields, FILTER_NAMES);
      refusedFields = e.fields;
    }
  }
  // Job filter options: the first live jobs by key and the job the URL filters by; typing searches every job.
  const jobOptions = await listJobOptions(getDb(), actor, { selected: jobId }).catch(() => []);
  const filters: FilterDef[] = [
    { kind: 'select', name: 'type', label: 'Type', options: ALARM_TYPES.map((t) => ({ value: t, label: t.replace('_', ' ') })) },
    { kind: 'select', name: 'status', label: 'Status', options: ALARM_STATUSES.map((s) => ({ value: s, label: s })) },
    { kind: 'combobox', name: 'jobId', label: 'Job', placeholder: 'Type a job key or name', options: jobOptions, search: searchJobOptionsAction },
  ];
  // the same query the table polls (GET /api/v1/alarms): only the filters the API accepts
  const query = new URLSearchParams(Object.entries({ type, status, jobId, cursor, before, limit: '50' }).filter((e): e is [string, string] => !!e[1])).toString();
  return (
    <>
      <PageHeader title="Alarms" description={`Failure, timeout, dead-letter, success and node-offline alarms, one row per delivery channel. Acknowledge one to show you are on it; silence a job or an alarm rule to stop notifications for a while. ${runAlarmDelayNote(runScanLagSeconds())}`.trim()} actions={<SendTestAlarmButton action={sendTestAlarmAction} />} />
      {silences ? <SilencesPanel initial={silences} unsilence={unsilenceAction} /> : null}
      <Card className="overflow-hidden">
        <FilterBar filters={filters} refused={refused} />
        {error || !result ? (
          <ErrorPanel message={error ? refusalMessage(refusedFields, filters, error) : 'Could not load alarms'} />
        ) : (
          <AlarmsTable key={query} initial={result} query={query} acknowledge={acknowledgeAlarmAction} silence={silenceAlarmsAction} filtered={filtersSet(sp, FILTER_NAMES)} clearHref={clearFiltersHref('/alarms', sp, FILTER_NAMES)} />
        )}
      </Card>
    </>
  );
});
