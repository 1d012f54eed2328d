import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { listTimeZones } from '@/lib/schedule';
import { getActor } from '@/app/_lib/session';
import { PageHeader } from '@/components/shell/page-header';
import { configuredPrivilegedHandlers } from '@/lib/jobs/handler-permissions';
import { JobForm } from '@/components/jobs/job-form';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { HandlerCatalogueProvider } from '@/components/handlers/use-handler-catalogue';
import { loadHandlerCatalogueFor } from '../handler-names';
import { createJobAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'New job' };
export const dynamic = 'force-dynamic';

/** /jobs/new: the job form in create mode. Viewers get a read-only notice instead. */
export default consolePage(async function NewJobPage() {
  const actor = await getActor();
  const crumb = <Link href="/jobs" className="hover:underline">Jobs</Link>;
  if (!actor || actor.role === 'viewer') {
    return (
      <>
        <PageHeader title="New job" crumb={crumb} />
        <ReadOnlyNotice />
      </>
    );
  }
  const { names, catalogue } = await loadHandlerCatalogueFor(actor);
  return (
    <>
      <PageHeader title="New job" crumb={crumb} description="Define what runs, when, and how failures are handled." />
      <HandlerCatalogueProvider entries={catalogue}>
        <JobForm mode="create" timeZones={listTimeZones()} handlers={names} submit={createJobAction} cancelHref="/jobs" privilegedHandlers={configuredPrivilegedHandlers()} />
      </HandlerCatalogueProvider>
    </>
  );
});
