'use server';

import { IdParams, UpdateJobInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { updateJob } from '@/lib/jobs/update-job';
import { defineAction } from '@/app/_actions/define-action';

/**
 * "Save" on the edit form: parse with lib/api UpdateJobInput (carries
 * `expectedVersion`), lib/jobs updateJob. A stale version comes back as code 'conflict'
 * with detail { currentVersion, changedFields, diff, changedBy } for the form's banner.
 */
export const updateJobAction = defineAction(
  'jobs.update',
  'Save job',
  async ({ db, actor }, id: string, input: unknown) => ({ id: (await updateJob(db, IdParams.parse({ id }).id, parseOrThrow(UpdateJobInput, input), actor)).id }),
  { revalidate: (r) => [`/jobs/${r.id}`, '/jobs'], redirect: (r) => `/jobs/${r.id}` },
);
