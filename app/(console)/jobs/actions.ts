'use server';

import { BulkJobsInput } from '@/lib/api/schemas';
import { parseOrThrow } from '@/lib/api/validation';
import { DomainError } from '@/lib/errors';
import { bulkJobs, type BulkAction } from '@/lib/jobs/bulk-jobs';
import { defineAction } from '@/app/_actions/define-action';

/** Bulk Pause / Resume / Delete from the jobs list: lib/jobs bulkJobs (one transaction, all or nothing). */
export const bulkJobsAction = defineAction(
  'jobs.bulk',
  'Bulk change',
  async ({ db, actor }, action: BulkAction, ids: string[]) => {
    if (action !== 'pause' && action !== 'resume' && action !== 'delete') throw new DomainError('validation', 'Unknown bulk action', { action: 'pause, resume or delete' });
    const jobs = await bulkJobs(db, action, parseOrThrow(BulkJobsInput, { ids }), actor);
    return { count: jobs.length };
  },
  { revalidate: (_, [action]) => (action === 'delete' ? ['/jobs', '/recycle-bin'] : ['/jobs']) },
);
