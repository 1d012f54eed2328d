'use server';

import { BulkJobsInput } from '@/lib/api/schemas';
import { bulkJobsEach, type BulkAction } from '@/lib/jobs/bulk-jobs';
import { z } from 'zod';
import { actionArgs, defineAction } from '@/app/_actions/define-action';
import { previewSchedule } from '@/lib/schedule/preview-schedule';

/**
 * Bulk Pause / Resume / Delete from the jobs list, and a row's Pause / Resume: lib/jobs bulkJobsEach (each job in its
 * own transaction), answering each job's outcome for the list's report (components/jobs/bulk-report.ts).
 */
export const bulkJobsAction = defineAction(
  'jobs.bulk',
  'Bulk change',
  actionArgs(['action', z.enum(['pause', 'resume', 'delete'], { error: 'pause, resume or delete' })], ['ids', BulkJobsInput.shape.ids]),
  async ({ db, actor }, action: BulkAction, ids: string[]) => {
    const results = await bulkJobsEach(db, action, { ids }, actor);
    return { outcomes: results.map((r) => (r.ok ? { id: r.id, ok: true as const } : { id: r.id, ok: false as const, message: r.message })) };
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
