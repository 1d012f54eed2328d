'use server';

import { IdParams, ReasonInput } from '@/lib/api/schemas';
import { restoreJob, restoreNotice } from '@/lib/jobs/restore-job';
import { purgeJob } from '@/lib/jobs/purge-job';
import { actionArgs, defineAction, IdArg } from '@/app/_actions/define-action';

/**
 * "Restore": lib/jobs restoreJob. A key now used by a live job comes back as a conflict on field `key`.
 * `notice` says why a job came back paused (its schedule can no longer fire: restoreNotice).
 */
export const restoreJobAction = defineAction(
  'jobs.restore',
  'Restore',
  actionArgs(['id', IdArg], ['reason', ReasonInput.shape.reason]),
  async ({ db, actor }, id: string, reason?: string) => {
    const job = await restoreJob(db, IdParams.parse({ id }).id, actor, { reason });
    return { id: job.id, key: job.key, notice: restoreNotice(job) };
  },
  { revalidate: () => ['/recycle-bin', '/jobs'] },
);

/** "Purge": deletes the job for good (lib/jobs purgeJob); its runs and logs stay by string reference. */
export const purgeJobAction = defineAction(
  'jobs.purge',
  'Purge',
  actionArgs(['id', IdArg]),
  async ({ db, actor }, id: string) => ({ key: (await purgeJob(db, IdParams.parse({ id }).id, actor)).key }),
  { revalidate: () => ['/recycle-bin'] },
);
