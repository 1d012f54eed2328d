'use server';

import { BulkJobsInput } from '@/lib/api/schemas';
import { bulkJobs, type BulkAction } from '@/lib/jobs/bulk-jobs';
import { z } from 'zod';
import { actionArgs, defineAction } from '@/app/_actions/define-action';
import { previewSchedule } from '@/lib/schedule/preview-schedule';

/** Bulk Pause / Resume / Delete from the jobs list: lib/jobs bulkJobs (one transaction, all or nothing). */
export const bulkJobsAction = defineAction(
  'jobs.bulk',
  'Bulk change',
  actionArgs(['action', z.enum(['pause', 'resume', 'delete'], { error: 'pause, resume or delete' })], ['ids', BulkJobsInput.shape.ids]),
  async ({ db, actor }, action: BulkAction, ids: string[]) => {
    const jobs = await bulkJobs(db, action, { ids }, actor);
    return { count: jobs.length };
  },
  { revalidate: (_, [action]) => (action === 'delete' ? ['/jobs', '/recycle-bin'] : ['/jobs']) },
);

/**
 * The job form's fire preview (components/jobs/schedule-preview.tsx): the next fire times of a cron expression or an
 * interval, from the query of GET /api/v1/schedule/preview (as strings) and the same domain function. An action
 * rather than that route because a refused input is then an answer (`{ ok: false, error, fields }`), not a 400: a
 * browser logs every failed request in its console, and an expression being typed is refused many times on its way.
 */
export const previewScheduleAction = defineAction(
  'schedule.preview',
  'Preview',
  actionArgs(['query', z.record(z.string(), z.string(), { error: 'Must be an object of text parameters' })]),
  async (_ctx, query: Record<string, string>) => previewSchedule(query, new Date()),
);
