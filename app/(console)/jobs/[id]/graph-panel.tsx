import type { JobDetail } from '@/lib/jobs/get-job';
import { JobGraphTab } from '@/components/dag/JobGraphTab';
import { HandlerCatalogueProvider, type HandlerCatalogueEntry } from '@/components/handlers/use-handler-catalogue';
import type { saveJobDagAction } from './actions';

/**
 * Graph tab: the DAG builder's editor (components/dag/JobGraphTab), read-only for viewers
 * and for jobs in the recycle bin. Saves go through `saveJobDagAction` with the version
 * this page loaded as `expectedVersion` (a stale editor gets a 409 conflict).
 */
export function JobGraphPanel({ job, canEdit, handlers, catalogue = [], saveAction }: { job: JobDetail; canEdit: boolean; handlers: string[]; catalogue?: HandlerCatalogueEntry[]; saveAction: typeof saveJobDagAction }) {
  return (
    <HandlerCatalogueProvider entries={catalogue}>
      <JobGraphTab jobId={job.id} version={job.version} steps={job.steps} edges={job.edges} handlers={handlers} canEdit={canEdit} saveAction={saveAction} />
    </HandlerCatalogueProvider>
  );
}
