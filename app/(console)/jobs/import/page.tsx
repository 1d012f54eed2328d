import type { Metadata } from 'next';
import { Link } from '@/components/ui/link';
import { listTimeZones } from '@/lib/schedule';
import { getActor } from '@/app/_lib/session';
import { PageHeader } from '@/components/shell/page-header';
import { ReadOnlyNotice } from '@/components/read-only-notice';
import { CrontabImport } from '@/components/jobs/crontab-import';
import { importCrontabAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';
import { crontabImportRefusal } from '@/lib/jobs/crontab-import-access';

export const metadata: Metadata = { title: 'Import crontab' };
export const dynamic = 'force-dynamic';

/** /jobs/import: a crontab / cron.d file -> paused shell jobs, with a dry-run preview first. Viewers get a read-only notice, operators the reason only an admin may import (crontabImportRefusal). */
export default consolePage(async function ImportCrontabPage() {
  const actor = await getActor();
  const crumb = <Link href="/jobs" className="hover:underline">Jobs</Link>;
  if (!actor || actor.role === 'viewer') {
    return (
      <>
        <PageHeader title="Import crontab" crumb={crumb} />
        <ReadOnlyNotice />
      </>
    );
  }
  // Every imported job runs shell: an operator would fill the form in only to be refused on Preview.
  const refusal = crontabImportRefusal(actor);
  if (refusal) {
    return (
      <>
        <PageHeader title="Import crontab" crumb={crumb} />
        <ReadOnlyNotice message={refusal} />
      </>
    );
  }
  return (
    <>
      <PageHeader
        title="Import crontab"
        crumb={crumb}
        description="Turn a crontab or /etc/cron.d file into paused shell jobs. Preview first; nothing fires until you resume a job."
      />
      <CrontabImport timeZones={listTimeZones()} submit={importCrontabAction} />
    </>
  );
});
