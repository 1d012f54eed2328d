import type { JobDetail } from '@/lib/jobs/get-job';
import { JobGraphTab } from '@/components/dag/JobGraphTab';
import { HandlerCatalogueProvider, type HandlerCatalogueEntry } from '@/components/handlers/use-handler-catalogue';
import type { saveJobDagAction } from './actions';

/**
 * Graph tab: the DAG editor (components/dag/JobGraphTab), read-only for viewers,
 * for jobs in the recycle bin, and for a job whose handler the user may not change (with the reason). Saves go through `saveJobDagAction` with the version
 * this page loaded as `expectedVersion` (a stale editor gets a 409 conflict).
 */
export function JobGraphPanel({
  job,
  canEdit,
  lockedReason,
  readOnlyReason,
  handlers,
  catalogue = [],
  saveAction,
}: {
  job: JobDetail;
  canEdit: boolean;
  /** why the graph is read-only for this user although they may edit jobs (a privileged handler) */
  lockedReason?: string;
  /** why the graph is read-only otherwise (viewer role, job in the recycle bin): shown as a short note above it */
  readOnlyReason?: string;
  handlers: string[];
  catalogue?: HandlerCatalogueEntry[];
  saveAction: typeof saveJobDagAction;
}) {
  return (
    <HandlerCatalogueProvider entries={catalogue}>
      {lockedReason ? (
        <p role="note" data-testid="graph-locked-reason" className="mb-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-[13px] text-amber-900">
          {lockedReason} You may still change its schedule, policy, routing and alarms, and pause or resume it.
        </p>
      ) : readOnlyReason ? (
        <p role="note" data-testid="graph-read-only-reason" className="mb-3 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 text-[13px] text-zinc-700">
          {readOnlyReason}
        </p>
      ) : null}
      <JobGraphTab jobId={job.id} version={job.version} steps={job.steps} edges={job.edges} handlers={handlers} canEdit={canEdit} saveAction={saveAction} />
    </HandlerCatalogueProvider>
  );
}
