import type { Metadata } from 'next';
import { requireActor } from '@/app/_lib/session';
import { getDb } from '@/lib/db';
import { listWorkers } from '@/lib/workers';
import { PageHeader } from '@/components/shell/page-header';
import { Card } from '@/components/ui/card';
import { WorkersTable } from '@/components/workers/workers-table';
import { drainWorkerAction, resumeWorkerAction } from './actions';
import { consolePage } from '@/app/_lib/page-error';

export const metadata: Metadata = { title: 'Workers' };
export const dynamic = 'force-dynamic';

/** /workers: registered worker nodes with heartbeat age, load and handlers; refreshed every 5 s. */
export default consolePage(async function WorkersPage() {
  const actor = await requireActor('viewer');
  const workers = await listWorkers(getDb(), actor);
  return (
    <>
      <PageHeader title="Workers" description="Processes that fire schedules and execute tasks. Scale out by starting more of them against the same PostgreSQL." />
      <Card className="overflow-hidden">
        <WorkersTable initial={workers} drain={drainWorkerAction} resume={resumeWorkerAction} />
      </Card>
    </>
  );
});
