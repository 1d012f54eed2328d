'use server';

import { IdParams } from '@/lib/api/schemas';
import { updateJob } from '@/lib/jobs/update-job';
import { z } from 'zod';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

/**
 * "Save" on the edit form: lib/jobs updateJob, which parses with lib/api UpdateJobInput (carries
 * `expectedVersion`) and names a changed schedule that would never fire with the other bad
 * fields. A stale version comes back as code 'conflict' with detail { currentVersion, changedFields, diff, changedBy } for the form's banner.
 */
export const updateJobAction = defineAction(
  'jobs.update',
  'Save job',
  actionArgs(['id', IdArg], ['input', z.unknown()]), // updateJob parses it with UpdateJobInput, as PATCH /jobs/:id does
  async ({ db, actor }, id: string, input: unknown) => ({ id: (await updateJob(db, IdParams.parse({ id }).id, input, actor)).id }),
  { revalidate: (r) => [`/jobs/${r.id}`, '/jobs'] },
);
