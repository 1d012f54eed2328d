'use server';

import { CreateJobInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { createJob } from '@/lib/jobs/create-job';
import { defineAction } from '@/app/_actions/define-action';

/**
 * "Create job": parse with lib/api CreateJobInput, lib/jobs createJob, then open the
 * new job. Field errors come back keyed by dotted path (schedule.cron, payload…).
 */
export const createJobAction = defineAction(
  'jobs.create',
  'Create job',
  async ({ db, actor }, input: unknown) => ({ id: (await createJob(db, parseOrThrow(CreateJobInput, input), actor)).id }),
  { revalidate: () => ['/jobs'], redirect: (r) => `/jobs/${r.id}` },
);
