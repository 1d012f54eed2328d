import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { notFound } from 'next/navigation';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { isDomainError } from '@/lib/errors';
import { getJob } from '@/lib/jobs/get-job';
import { listTimeZones } from '@/lib/schedule';
import { PageHeader } from '@/components/shell/page-header';
import { configuredPrivilegedHandlers, commandLockOf } from '@/lib/jobs/handler-permissions';
import { JobForm } from '@/components/jobs/job-form';
import { jobToFormValues } from '@/components/jobs/form-values';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { HandlerCatalogueProvider } from '@/components/handlers/use-handler-catalogue';
import { loadHandlerCatalogueFor } from '../../handler-names';
import { updateJobAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Edit job' };
export const dynamic = 'force-dynamic';

/** /jobs/[id]/edit: the job form prefilled, saving with the version it was loaded at. */
export default consolePage(async function EditJobPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor('viewer');
  let job;
  try {
    job = await getJob(getDb(), id, actor);
  } catch (e) {
    if (isDomainError(e) && e.code === 'not_found') notFound();
    throw e;
  }
  if (job.deletedAt) notFound();
  const crumb = (
    <>
      <Link href="/jobs" className="hover:underline">Jobs</Link> /{' '}
      <Link href={`/jobs/${job.id}`} className="font-mono hover:underline">{job.key}</Link>
    </>
  );
  if (actor.role === 'viewer') {
    return (
      <>
        <PageHeader title="Edit job" crumb={crumb} />
        <ReadOnlyNotice />
      </>
    );
  }
  const submit = updateJobAction.bind(null, job.id);
  const { names, catalogue } = await loadHandlerCatalogueFor(actor);
  return (
    <>
      <PageHeader title={`Edit ${job.key}`} crumb={crumb} />
      <HandlerCatalogueProvider entries={catalogue}>
        <JobForm mode="edit" initial={jobToFormValues(job)} expectedVersion={job.version} jobId={job.id} jobCreatedAt={job.createdAt} timeZones={listTimeZones()} handlers={names} submit={submit} cancelHref={`/jobs/${job.id}`} privilegedHandlers={configuredPrivilegedHandlers()} commandLock={commandLockOf(actor, { steps: job.steps, jobPayload: job.payload })} />
      </HandlerCatalogueProvider>
    </>
  );
});
