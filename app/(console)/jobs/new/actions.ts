'use server';

import { createJob } from '@/lib/jobs/create-job';
import { z } from 'zod';
import { actionArgs, defineAction } from '@/app/_actions/define-action';

/**
 * "Create job": lib/jobs createJob (which parses with lib/api CreateJobInput); the form then says so and
 * opens the new job (components/jobs/use-job-form.ts). Field errors come back keyed by dotted path (schedule.cron, payload…), a schedule
 * that would never fire with the others.
 */
export const createJobAction = defineAction(
  'jobs.create',
  'Create job',
  actionArgs(['input', z.unknown()]), // createJob parses it with CreateJobInput, as POST /jobs does
  async ({ db, actor }, input: unknown) => ({ id: (await createJob(db, input, actor)).id }),
  { revalidate: () => ['/jobs'] },
);
