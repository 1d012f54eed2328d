'use server';

import { actionArgs, defineAction, IdArg, objectArg } from '@/app/_actions/define-action';
import { backfillJob, previewBackfill } from '@/lib/jobs/backfill-job';

// Operator doors onto lib/jobs backfill-job (the same functions as POST
// /jobs/:id/backfill[/preview]; docs/recovery.md). Input is checked there.

/** The slots a backfill of `{ from, to }` (ISO instants) would create or skip; writes nothing. */
export const previewBackfillAction = defineAction(
  'jobs.backfillPreview',
  'Backfill preview',
  actionArgs(['jobId', IdArg], ['input', objectArg<{ from: string; to: string }>()]),
  ({ db, actor }, jobId: string, input: { from: string; to: string }) => previewBackfill(db, jobId, input, actor),
);

/** Creates the backfill runs (queued one after the other) and the audit row. */
export const backfillJobAction = defineAction(
  'jobs.backfill',
  'Backfill',
  actionArgs(['jobId', IdArg], ['input', objectArg<{ from: string; to: string; reason?: string }>()]),
  ({ db, actor }, jobId: string, input: { from: string; to: string; reason?: string }) =>
    backfillJob(db, jobId, input?.reason ? input : { from: input?.from, to: input?.to }, actor),
  { revalidate: (_, [jobId]) => [`/jobs/${jobId}`, '/runs'] },
);
